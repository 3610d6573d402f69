import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { CommandError } from '../errors.ts';
import {
  debianMirror,
  ensureDebianRoot,
  rootRecipeHash,
  type DebianRootRecipe,
} from './debian-root.ts';
import { RecordingRunner } from './recording-runner.ts';

const RECIPE: DebianRootRecipe = {
  suite: 'bookworm',
  variant: 'minbase',
  include: ['procps', 'iproute2'],
  mirror: 'http://mirror.example/debian',
};

describe('Debian roots cached by their recipe (debian-root.ts)', function () {
  let cache = '';
  beforeEach(() => {
    cache = mkdtempSync(join(tmpdir(), 'hl-debian-root-'));
  });
  afterEach(() => {
    rmSync(cache, { recursive: true, force: true });
  });

  it('names a recipe by every field (package order aside)', () => {
    const hash = rootRecipeHash(RECIPE);
    expect(hash).to.match(/^[0-9a-f]{12}$/);
    expect(rootRecipeHash({ ...RECIPE, include: ['iproute2', 'procps'] })).to.equal(hash);
    for (const other of [
      { ...RECIPE, suite: 'trixie' },
      { ...RECIPE, include: ['procps'] },
      { ...RECIPE, mirror: 'http://other.example/debian' },
    ])
      expect(rootRecipeHash(other), JSON.stringify(other)).to.not.equal(hash);
  });

  it("takes the mirror from HL_DEBIAN_MIRROR, else from the machine's apt sources, else fails", () => {
    const etc = mkdtempSync(join(tmpdir(), 'hl-apt-root-'));
    try {
      const env = { PATH: process.env.PATH, HL_APT_ROOT: etc };
      expect(() => debianMirror(env)).to.throw(/no Debian mirror.*set HL_DEBIAN_MIRROR/);
      mkdirSync(join(etc, 'etc/apt/sources.list.d'), { recursive: true });
      // deb822, a comment naming another archive first, security after the archive.
      writeFileSync(
        join(etc, 'etc/apt/sources.list.d/corp.sources'),
        [
          'Types: deb',
          '# URIs: http://old.example/debian',
          'URIs: https://mirror.corp.example/pub/debian/',
          'Suites: bookworm',
          '',
          'Types: deb',
          'URIs: https://mirror.corp.example/pub/debian-security',
        ].join('\n'),
      );
      expect(debianMirror(env)).to.equal('https://mirror.corp.example/pub/debian');
      // One-line format in sources.list comes first.
      writeFileSync(
        join(etc, 'etc/apt/sources.list'),
        'deb [signed-by=/k.gpg] http://apt.example:3142/debian bookworm main\n',
      );
      expect(debianMirror(env)).to.equal('http://apt.example:3142/debian');
      expect(debianMirror({ ...env, HL_DEBIAN_MIRROR: 'http://m/debian/' })).to.equal(
        'http://m/debian',
      );
    } finally {
      rmSync(etc, { recursive: true, force: true });
    }
  });

  it('builds a missing root with debootstrap into a .part folder, renames it, drops other recipes', async () => {
    mkdirSync(join(cache, 'aaaaaaaaaaaa'));
    const runner = new RecordingRunner();
    const root = await ensureDebianRoot(runner, cache, RECIPE);
    expect(root).to.equal(join(cache, rootRecipeHash(RECIPE)));
    expect(existsSync(root)).to.be.true;
    // The root is every user's `/`.
    expect(statSync(root).mode & 0o777).to.equal(0o755);
    const debootstrap = runner.calls.find((c) => c.file === 'debootstrap')!;
    expect(debootstrap.args.slice(0, 3)).to.deep.equal([
      '--variant=minbase',
      '--include=procps,iproute2',
      `--cache-dir=${join(cache, 'debs')}`,
    ]);
    expect(debootstrap.args[3]).to.equal('bookworm');
    expect(debootstrap.args[4]).to.match(new RegExp(`/${rootRecipeHash(RECIPE)}\\.part-`));
    expect(debootstrap.args[5]).to.equal(RECIPE.mirror);
    expect(runner.calls.filter((c) => c.file === 'rm').map((c) => c.args)).to.deep.equal([
      ['-rf', '--one-file-system', join(cache, 'aaaaaaaaaaaa')],
    ]);
  });

  it('uses the root it has, without debootstrap', async () => {
    mkdirSync(join(cache, rootRecipeHash(RECIPE)));
    const runner = new RecordingRunner();
    await ensureDebianRoot(runner, cache, RECIPE);
    expect(runner.calls).to.deep.equal([]);
  });

  it('a failed debootstrap leaves no root (its .part folder goes) and says why', async () => {
    const runner = new RecordingRunner().on(/^debootstrap /, {
      exitCode: 1,
      stderr: 'E: no mirror',
    });
    let error: unknown;
    try {
      await ensureDebianRoot(runner, cache, RECIPE);
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(CommandError);
    expect((error as Error).message).to.contain('E: no mirror');
    const part = runner.calls.find((c) => c.file === 'debootstrap')!.args[4]!;
    expect(runner.calls.at(-1)!.args).to.deep.equal(['-rf', '--one-file-system', part]);
    expect(readdirSync(cache).filter((n) => /^[0-9a-f]{12}$/.test(n))).to.deep.equal([]);
  });
});
