import { createKey, gatewayForSuite, type TestGateway } from '@test/support/gateway-test-app';
import { describeEachDialect } from '@test/support/test-database';
import { buildTestZip, type TestZipEntry } from '@test/support/test-zip.writer';
import { skillMd } from '@test/support/skill-fixture';

const MAX_FILES = 5;
const MAX_BYTES = 64 * 1024;
const GOOD_MD: TestZipEntry = { name: 'SKILL.md', data: skillMd('hostile', 'A skill in a hostile zip') };

/** Each hostile archive, and the words its 400 must contain. */
const REFUSALS: Array<[string, TestZipEntry[], RegExp]> = [
  ['a path with ../', [GOOD_MD, { name: 'scripts/../../etc/passwd', data: 'x' }], /leaves the skill folder/],
  ['an absolute path', [GOOD_MD, { name: '/etc/cron.d/job', data: 'x' }], /is absolute/],
  ['a drive letter', [GOOD_MD, { name: 'C:/Windows/evil.bat', data: 'x' }], /drive letter/],
  ['a backslash', [GOOD_MD, { name: 'scripts\\..\\evil.sh', data: 'x' }], /backslash/],
  [
    'a symlink entry',
    [GOOD_MD, { name: 'link', data: '/etc/passwd', mode: 0o120777 }],
    /symbolic link: links are not accepted; put the file it points to in its place/,
  ],
  [
    'duplicate names',
    [GOOD_MD, { name: 'a.txt', data: '1' }, { name: 'a.txt', data: '2' }],
    /duplicate file name "a.txt" \(names that differ only in letter case or accents count as one\): rename or remove one of them/,
  ],
  [
    'too many files',
    [GOOD_MD, ...Array.from({ length: MAX_FILES }, (_, i) => ({ name: `f${i}.txt`, data: 'x' }))],
    /more than 5 files \(SKILL_MAX_FILES\): leave out files the skill does not need/,
  ],
  [
    'too many bytes behind a header that claims 10',
    [GOOD_MD, { name: 'bomb.txt', data: Buffer.alloc(4 * MAX_BYTES, 0x61), declaredSize: 10 }],
    /more than 65536 bytes \(SKILL_MAX_BYTES\), counted while reading "bomb.txt": leave out or shorten files/,
  ],
  [
    'names that differ in letter case only',
    [GOOD_MD, { name: 'Notes.txt', data: '1' }, { name: 'notes.txt', data: '2' }],
    /duplicate file name "notes.txt"/,
  ],
  [
    'names MySQL takes for one (accents, ß)',
    [GOOD_MD, { name: 'café.txt', data: '1' }, { name: 'cafe.txt', data: '2' }],
    /duplicate file name "cafe.txt"/,
  ],
  [
    'names MySQL takes for one (ß and ss)',
    [GOOD_MD, { name: 'straße.md', data: '1' }, { name: 'STRASSE.md', data: '2' }],
    /duplicate file name "STRASSE.md"/,
  ],
  [
    'too many entries that are not files (folders)',
    [GOOD_MD, ...Array.from({ length: 40 }, (_, i) => ({ name: `d${i}/`, data: '' }))],
    /the zip has 41 entries \(files, folders and archiver extras\); at most 36 for SKILL_MAX_FILES 5/,
  ],
  ['a name ending with a space', [GOOD_MD, { name: 'notes.txt ', data: '1' }], /ends with a space/],
  [
    'a name with a bidi override (the index shows "scripts/runhs.txt")',
    [GOOD_MD, { name: 'scripts/run\u202Etxt.sh', data: 'rm -rf ~' }],
    /path "scripts\/run\\u202etxt.sh" must not contain control characters .* bidi/,
  ],
  [
    'a name with a C1 control (a terminal escape)',
    [GOOD_MD, { name: 'notes\u009b2J.txt', data: '1' }],
    /must not contain control characters/,
  ],
  [
    'a file that is also a folder',
    [GOOD_MD, { name: 'notes', data: 'x' }, { name: 'notes/a.txt', data: 'y' }],
    /"notes" is both a file and a folder: rename the file or the folder/,
  ],
  ['no SKILL.md', [{ name: 'README.md', data: '# hi' }], /no SKILL\.md/],
  [
    'SKILL.md in two top-level folders',
    [
      { name: 'a/SKILL.md', data: GOOD_MD.data },
      { name: 'b/x.txt', data: 'x' },
    ],
    /no SKILL\.md/,
  ],
  ['a SKILL.md without name', [{ name: 'SKILL.md', data: '---\ndescription: no name\n---\nbody' }], /has no name/],
  [
    'a description with a bidi override (it reorders what a reviewer reads)',
    [{ name: 'SKILL.md', data: '---\nname: bidi\ndescription: "Sums a CSV \\u202Etxt.exe"\n---\nbody' }],
    /SKILL\.md description must not contain control characters .* bidi/,
  ],
  [
    'a description with a terminal escape',
    [{ name: 'SKILL.md', data: '---\nname: escape\ndescription: "Sums \\e[2Ja CSV"\n---\nbody' }],
    /SKILL\.md description must not contain control characters/,
  ],
  [
    'a binary file',
    [GOOD_MD, { name: 'assets/logo.png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d]) }],
    /"assets\/logo.png" is binary/,
  ],
  [
    'a SKILL.md saved as UTF-16 (Windows PowerShell 5 writes it so), named as text in another encoding',
    [
      {
        name: 'SKILL.md',
        data: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(GOOD_MD.data as string, 'utf16le')]),
      },
    ],
    /"SKILL\.md" is UTF-16 text .*save it as UTF-8/,
  ],
  [
    'a text file saved as Windows-1252, named as text in another encoding',
    [GOOD_MD, { name: 'notes.txt', data: Buffer.from('caf\xe9 cr\xe8me', 'latin1') }],
    /"notes\.txt" is not UTF-8 text .*Windows-1252.*save it as UTF-8/,
  ],
  [
    'something that is not a zip',
    [],
    /not a readable zip archive \(.+\): send the skill folder packed as a \.zip \(e\.g\. zip -r skill\.zip my-skill\/\)/,
  ],
];

describeEachDialect('skills: hostile archives are refused with a 400 naming the problem, nothing stored', (dialect) => {
  const suite = gatewayForSuite(dialect, { SKILL_MAX_FILES: String(MAX_FILES), SKILL_MAX_BYTES: String(MAX_BYTES) });
  let gw: TestGateway;
  let admin: { Authorization: string };

  beforeAll(async () => {
    gw = suite.gw;
    admin = await createKey(gw, 'hostile', 'admin');
  });

  it.each(REFUSALS)('refuses %s', async (_title, entries, problem) => {
    const zip = entries.length > 0 ? buildTestZip(entries) : Buffer.from('PK\u0003\u0004 not really a zip');
    const res = await uploadZip(zip, 400);
    expect(res.body.error.code).toBe('SKILL_ARCHIVE_INVALID');
    expect(res.body.error.message).toMatch(problem);
    expect(res.body.error.message).toContain('Nothing was stored');
  });

  /** A JSON upload of a good SKILL.md and a one-byte file at each of `paths`. */
  const uploadJsonFiles = (paths: string[]) =>
    gw.http
      .post('/api/v1/admin/skills')
      .set(admin)
      .send({
        tenantId: 'hostile',
        skillContent: GOOD_MD.data,
        files: paths.map((path) => ({ path, contentBase64: Buffer.from('x').toString('base64') })),
      });

  it('refuses the same problems in a JSON upload as VALIDATION_FAILED', async () => {
    const res = await uploadJsonFiles(['../escape.sh']).expect(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.message).toMatch(/leaves the skill folder/);
    expect(res.body.error.details.fields).toEqual([
      { field: 'files', problems: [expect.stringMatching(/leaves the skill folder/)] },
    ]);
  });

  it('refuses an encrypted entry, saying to zip without a password', async () => {
    const zip = buildTestZip([GOOD_MD, { name: 'secret.txt', data: 'x', method: 'store' }]);
    // Bit 0 of the general purpose flags (encrypted) in the second central directory record.
    const central = zip.indexOf(
      Buffer.from([0x50, 0x4b, 0x01, 0x02]),
      zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + 4,
    );
    zip.writeUInt16LE(zip.readUInt16LE(central + 8) | 1, central + 8);
    const res = await uploadZip(zip, 400);
    expect(res.body.error.message).toContain('entry "secret.txt" is encrypted: create the zip without a password');
  });

  it('refuses a JSON upload holding more than SKILL_MAX_BYTES, naming its size, the limit and the fix', async () => {
    const res = await gw.http
      .post('/api/v1/admin/skills')
      .set(admin)
      .send({
        tenantId: 'hostile',
        skillContent: GOOD_MD.data,
        files: [{ path: 'big.txt', contentBase64: Buffer.alloc(MAX_BYTES, 0x61).toString('base64') }],
      })
      .expect(400);
    expect(res.body.error.message).toMatch(
      /the skill holds \d+ bytes unpacked, more than 65536 \(SKILL_MAX_BYTES\): leave out or shorten files the skill does not need/,
    );
  });

  /** A JSON upload's SKILL.md (skillContent) with a problem, the files sent beside it, and the problem's words. */
  const SKILL_CONTENT_REFUSALS: Array<[string, string, string[], RegExp]> = [
    ['without front matter, beside a file', '# Just a title', ['notes.txt'], /^SKILL\.md has no YAML front matter/],
    ['without a name, alone', '---\ndescription: no name\n---\nbody', [], /^SKILL\.md front matter has no name/],
    ['holding a NUL byte, beside a file', `${GOOD_MD.data as string}\u0000`, ['notes.txt'], /"SKILL\.md" is binary/],
  ];

  // SKILL.md's problems were named under `files`, a field the admin may not even have sent.
  it.each(SKILL_CONTENT_REFUSALS)(
    "names skillContent (not files) for a JSON upload's SKILL.md %s; the same zip keeps its SKILL_ARCHIVE_INVALID",
    async (_title, skillContent, paths, problem) => {
      const json = await gw.http
        .post('/api/v1/admin/skills')
        .set(admin)
        .send({
          tenantId: 'hostile',
          skillContent,
          files: paths.map((path) => ({ path, contentBase64: Buffer.from('x').toString('base64') })),
        })
        .expect(400);
      expect(json.body.error.code).toBe('VALIDATION_FAILED');
      expect(json.body.error.details.fields).toEqual([
        { field: 'skillContent', problems: [expect.stringMatching(problem)] },
      ]);
      expect(json.body.error.message).toMatch(/^Invalid request: skillContent: /);
      const zip = buildTestZip([
        { name: 'SKILL.md', data: skillContent },
        ...paths.map((name) => ({ name, data: 'x' })),
      ]);
      const form = await uploadZip(zip, 400);
      expect(form.body.error).toMatchObject({
        code: 'SKILL_ARCHIVE_INVALID',
        details: { problem: json.body.error.details.fields[0].problems[0] },
      });
      expect(form.body.error.message).toMatch(/^The skill package was refused: .*Nothing was stored\.$/);
    },
  );

  it('refuses a JSON file path holding half of a character (a lone surrogate), alone or beside another such path', async () => {
    for (const paths of [['notes-\ud800.md'], ['notes-\ud800.md', 'notes-\udc00.md']]) {
      const res = await uploadJsonFiles(paths);
      expect([res.status, res.body.error?.code]).toEqual([400, 'VALIDATION_FAILED']);
      expect(res.body.error.message).toMatch(/path "notes-\\ud800\.md" holds half of a character/);
    }
  });

  it('refuses a JSON file whose path ends with "/" (a folder, not a file), alone or beside a file inside it', async () => {
    for (const paths of [['notes/'], ['notes/', 'notes/a.md']]) {
      const res = await uploadJsonFiles(paths).expect(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.message).toMatch(/path "notes\/" ends with "\/"/);
    }
  });

  it('refuses a zip file larger than SKILL_MAX_BYTES allows, or a second file, saying which limit and how to fix it', async () => {
    const tooLarge = await uploadZip(Buffer.alloc(MAX_BYTES + 1024 * 1024 + 1, 0x61), 400);
    expect(tooLarge.body.error.code).toBe('SKILL_ARCHIVE_INVALID');
    expect(tooLarge.body.error.message).toContain(
      `the zip is larger than ${MAX_BYTES + 1024 * 1024} bytes (SKILL_MAX_BYTES, ${MAX_BYTES}, and 1 MiB for the zip's own headers)`,
    );
    const twoFiles = await gw.http
      .post('/api/v1/admin/skills')
      .set(admin)
      .field('tenantId', 'hostile')
      .attach('file', buildTestZip([GOOD_MD]), 'skill.zip')
      .attach('file', buildTestZip([GOOD_MD]), 'again.zip')
      .expect(400);
    expect(twoFiles.body.error.code).toBe('SKILL_ARCHIVE_INVALID');
    expect(twoFiles.body.error.message).toContain('send one zip in the field "file"');
  });

  // The form is read from the request as sent; the body inflated beside it for Content-Encoding failed with nothing
  // listening, and that unhandled 'error' event ended the gateway process (after the 400 was sent).
  it('answers a form declared gzip that does not inflate with a 400, and the gateway keeps serving', async () => {
    const res = await gw.http
      .post('/api/v1/admin/skills')
      .set(admin)
      .set('content-type', 'multipart/form-data; boundary=B')
      .set('content-encoding', 'gzip')
      .send(Buffer.from('not gzip at all'));
    expect(res.status).toBe(400);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await gw.http.get('/health').expect(200);
  });

  it('reads multipart on the skill upload routes only (415 elsewhere)', async () => {
    const res = await gw.http
      .post('/api/v1/admin/agents')
      .set(admin)
      .field('tenantId', 'hostile')
      .field('name', 'multipart-agent')
      .expect(415);
    expect(res.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('stored nothing for any refused upload, and still takes a good zip', async () => {
    const before = await gw.http.get('/api/v1/admin/skills').set(admin).expect(200);
    expect(before.body.total).toBe(0);
    await uploadZip(buildTestZip([GOOD_MD, { name: 'notes.txt', data: 'fine' }]), 201);
  });

  /** The admin's form with one zip in the field "file", for the tenant "hostile". */
  function uploadZip(zip: Buffer, status: number) {
    return gw.http
      .post('/api/v1/admin/skills')
      .set(admin)
      .field('tenantId', 'hostile')
      .attach('file', zip, 'skill.zip')
      .expect(status);
  }
});
