import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { HistoryError } from './history-error.ts';
import { HistoryStore } from './history-store.ts';
import { run } from '../testing/history-records.ts';

const dirs: string[] = [];

function freshStore(): HistoryStore {
  const dir = mkdtempSync(join(tmpdir(), 'hl-history-'));
  dirs.push(dir);
  return new HistoryStore(join(dir, 'store'));
}

describe('history store (JSON lines per preset)', () => {
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('appends one line per run into <preset>.jsonl and reads them back', () => {
    const store = freshStore();
    expect(store.presets()).to.deep.equal([]);
    expect(store.add(run(1))).to.equal('added');
    expect(store.add(run(2))).to.equal('added');
    expect(store.add(run(1, {}, { preset: 'libvirt-hybrid', emulated: false }))).to.equal('added');
    expect(store.presets()).to.deep.equal(['hybrid', 'libvirt-hybrid']);
    const lines = readFileSync(store.fileOf('hybrid'), 'utf8').trim().split('\n');
    expect(lines).to.have.length(2);
    expect((JSON.parse(lines[0]!) as { runId: string }).runId).to.equal('run-01');
    expect(store.readAll().map((r) => `${r.preset}/${r.runId}`)).to.deep.equal([
      'hybrid/run-01',
      'hybrid/run-02',
      'libvirt-hybrid/run-01',
    ]);
  });

  it('adds a run only once per preset', () => {
    const store = freshStore();
    store.add(run(1));
    expect(store.add(run(1))).to.equal('already-recorded');
    expect(store.readPreset('hybrid')).to.have.length(1);
  });

  it('names the file and line of a damaged record', () => {
    const store = freshStore();
    store.add(run(1));
    appendFileSync(store.fileOf('hybrid'), '{"format":1,"preset":"hybrid"\n');
    expect(() => store.readAll())
      .to.throw(HistoryError)
      .with.property('message')
      .that.contains(`${store.fileOf('hybrid')}:2 is not JSON`);
  });

  it('names the field of a record that is JSON but not a run', () => {
    const store = freshStore();
    store.add(run(1));
    const bad = { ...run(2), emulated: 'yes' };
    appendFileSync(store.fileOf('hybrid'), `${JSON.stringify(bad)}\n`);
    expect(() => store.readPreset('hybrid'))
      .to.throw(HistoryError)
      .with.property('message')
      .that.matches(/hybrid\.jsonl:2 is not a run record:\n\s+emulated: expected boolean/);
  });

  it('refuses a record filed in another preset’s file', () => {
    const store = freshStore();
    store.add(run(1));
    appendFileSync(store.fileOf('hybrid'), `${JSON.stringify(run(2, {}, { preset: 'other' }))}\n`);
    expect(() => store.readAll()).to.throw(HistoryError, 'belongs to preset "other"');
  });
});
