import { evaluateRiskText } from './risk-text.evaluator';
import type { RiskRule } from './risk.types';

function rulesOf(text: string): RiskRule[] {
  return evaluateRiskText(text, 'shell').rules.map((r) => r.rule);
}

describe('partition tools (through evaluateRiskText with the shell hint)', () => {
  it.each([
    'parted /dev/sda rm 1',
    'sudo parted -s /dev/nvme0n1 mklabel gpt',
    'parted --script /dev/sdb mktable msdos',
    'diskutil eraseDisk JHFS+ Untitled disk2',
    'diskutil eraseVolume APFS Data /dev/disk3s1',
    'sudo diskutil zeroDisk disk4',
    'diskutil partitionDisk /dev/disk2 GPT JHFS+ New 0b',
  ])('reads %s as wiping a disk, as sgdisk --zap-all is', (text) => {
    expect(rulesOf(text)).toContain('disk-wipe');
  });

  it.each(['parted -l', 'parted /dev/sda print', 'diskutil list', 'diskutil info disk2', 'diskutil unmountDisk disk2'])(
    'leaves %s alone',
    (text) => {
      expect(rulesOf(text)).toEqual([]);
    },
  );
});
