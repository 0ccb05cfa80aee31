import { mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DomainError } from '@app/common/errors/domain-error';
import { WorkspacePathResolver } from './workspace-path.resolver';

/** WORKSPACE_MAX_FILES's default: how many names of a folder a path with U+FFFD may look through. */
const MAX_NAMES = 1000;

describe('WorkspacePathResolver', () => {
  describe('normalize', () => {
    it.each([
      ['a/b.txt', 'a/b.txt'],
      ['./a//b.txt', 'a/b.txt'],
      ['a/./b/', 'a/b'],
      ['dots..in.name', 'dots..in.name'],
    ])('keeps %j as %j', (input, expected) => {
      expect(WorkspacePathResolver.normalize(input, false)).toBe(expected);
    });

    it.each([
      '..',
      'a/../../b',
      '/abs',
      '~/x',
      'C:\\x',
      'c:/x',
      'a\\b',
      'a\0b',
      'x'.repeat(1025),
      'a/' + 'n'.repeat(256),
    ])('refuses %j with WORKSPACE_PATH_INVALID', (input) => {
      expect(() => WorkspacePathResolver.normalize(input, false)).toThrow(DomainError);
    });

    it('refuses the root unless asked for, and non-strings', () => {
      expect(() => WorkspacePathResolver.normalize('.', false)).toThrow(
        'names the workspace root, not a file: name a file in it, e.g. notes.txt',
      );
      expect(() => WorkspacePathResolver.normalize('a\0b', false)).toThrow(
        'it contains a NUL character (\\0); remove it from the path',
      );
      expect(WorkspacePathResolver.normalize('', true)).toBe('');
      expect(() => WorkspacePathResolver.normalize(42, true)).toThrow('must be a string');
    });
  });

  describe('forWrite', () => {
    it('creates parents inside, and refuses a parent symlink that leads out before creating anything through it', async () => {
      const root = mkdtempSync(join(tmpdir(), 'ws-unit-'));
      const outside = mkdtempSync(join(tmpdir(), 'ws-out-'));
      const made = await WorkspacePathResolver.forWrite(root, 'a/b/c.txt', MAX_NAMES);
      expect(made).toMatchObject({ relative: 'a/b/c.txt', existed: false });
      symlinkSync(outside, join(root, 'out'));
      await expect(WorkspacePathResolver.forWrite(root, 'out/deep/x.txt', MAX_NAMES)).rejects.toThrow('leads out');
      expect(readdirSync(outside)).toEqual([]);
      writeFileSync(join(root, 'file'), 'x');
      await expect(WorkspacePathResolver.forWrite(root, 'file/x.txt', MAX_NAMES)).rejects.toThrow(
        '"file" is a file, not a folder: pick a path that does not pass through the file, or delete it first (DELETE_FILE)',
      );
      mkdirSync(join(root, 'dir'));
      await expect(WorkspacePathResolver.forWrite(root, 'dir', MAX_NAMES)).rejects.toThrow(
        'it is a folder: name a file in it, e.g. dir/notes.txt',
      );
    });
  });
});
