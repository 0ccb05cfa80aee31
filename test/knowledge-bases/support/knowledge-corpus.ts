/**
 * A small labelled corpus for knowledge search: documents (English and Chinese, Markdown and plain text, with
 * shared vocabulary so that ranking matters) and queries, each labelled with the one document that answers it.
 */
export interface CorpusDocument {
  title: string;
  mimeType: 'text/plain' | 'text/markdown';
  content: string;
}

export interface LabelledQuery {
  query: string;
  relevant: string;
}

export const CORPUS: CorpusDocument[] = [
  {
    title: 'Refund policy',
    mimeType: 'text/markdown',
    content: `# Refund policy

## Eligibility
Customers may request a refund within 30 days of purchase. Digital goods that were downloaded are not eligible.

## Processing time
Refunds are paid back to the original payment method. A card refund takes five to seven business days to appear
on the statement; a bank transfer may take up to ten business days.`,
  },
  {
    title: 'Shipping and delivery',
    mimeType: 'text/markdown',
    content: `# Shipping

Orders ship from our warehouse in Rotterdam within two business days.

## International delivery
International parcels travel with a tracked courier. Customs duties are paid by the recipient on delivery.

## Lost parcels
If tracking shows no movement for 14 days, open a claim and we resend the order or pay it back.`,
  },
  {
    title: 'Password reset',
    mimeType: 'text/plain',
    content: `To reset a forgotten password open the sign-in page and choose "Forgot password". We email a reset link
that expires after one hour. If the email does not arrive, check the spam folder or ask support to verify your
account ownership.

Two-factor authentication codes are not affected by a password reset.`,
  },
  {
    title: 'API rate limits',
    mimeType: 'text/markdown',
    content: `# Rate limits

Each API key may send 600 requests per minute. Above the limit the API answers HTTP 429 with a Retry-After header.

## Bursts
Short bursts up to 100 requests per second are absorbed by a token bucket. Batch endpoints count as one request.`,
  },
  {
    title: 'Database backups',
    mimeType: 'text/markdown',
    content: `# Backups

A full snapshot of the database is taken every night at 02:00 UTC and kept for 35 days.

## Restore
To restore a backup, stop the application, run the restore script with the snapshot id, then start the
application again. Point-in-time recovery is available for the last seven days.`,
  },
  {
    title: 'Office wifi',
    mimeType: 'text/plain',
    content: `The guest wifi network is called Visitors and its password changes every Monday. Staff use the Corp
network with their single sign-on account. Printers are on the Devices network and cannot be reached from
the guest network.`,
  },
  {
    title: '退款政策',
    mimeType: 'text/markdown',
    content: `# 退款政策

## 申请条件
自购买之日起三十天内，顾客可以申请退款。已经下载的数字商品不予退款。

## 到账时间
退款将退回原支付方式。信用卡退款一般在七个工作日内到账，银行转账最长需要十个工作日。`,
  },
  {
    title: '数据库备份与恢复',
    mimeType: 'text/markdown',
    content: `# 数据库备份

每天凌晨两点对数据库做一次全量快照，快照保留三十五天。

## 恢复数据
恢复备份时，先停止应用，再用快照编号运行恢复脚本，最后重新启动应用。最近七天支持按时间点恢复。`,
  },
  {
    title: '员工请假制度',
    mimeType: 'text/plain',
    content: `员工每年享有十五天带薪年假。请假需要提前三个工作日在人事系统中提交申请，由直属经理审批。
病假需要提供医院证明。未用完的年假可以顺延到下一年的第一季度。`,
  },
  {
    title: '快递与配送',
    mimeType: 'text/markdown',
    content: `# 配送说明

订单在两个工作日内从仓库发出。国际包裹使用可追踪的快递，关税由收件人支付。

## 包裹丢失
如果物流信息十四天没有更新，请提交理赔申请，我们会重新发货或者退款。`,
  },
];

export const LABELLED_QUERIES: LabelledQuery[] = [
  { query: 'how long does a card refund take', relevant: 'Refund policy' },
  { query: 'can I get my money back for a downloaded ebook', relevant: 'Refund policy' },
  { query: 'who pays customs duties on international delivery', relevant: 'Shipping and delivery' },
  { query: 'my parcel tracking has not moved', relevant: 'Shipping and delivery' },
  { query: 'forgot password reset link expired', relevant: 'Password reset' },
  { query: 'HTTP 429 Retry-After too many requests', relevant: 'API rate limits' },
  { query: 'restore the database from a nightly snapshot', relevant: 'Database backups' },
  { query: 'guest wifi password', relevant: 'Office wifi' },
  { query: '信用卡退款多久到账', relevant: '退款政策' },
  { query: '数字商品可以退款吗', relevant: '退款政策' },
  { query: '如何恢复数据库快照', relevant: '数据库备份与恢复' },
  { query: '年假可以顺延吗', relevant: '员工请假制度' },
  { query: '病假需要什么证明', relevant: '员工请假制度' },
  { query: '国际包裹的关税谁付', relevant: '快递与配送' },
  { query: '物流信息没有更新怎么办', relevant: '快递与配送' },
];
