import { expect } from 'chai';
import type { SuiteNode } from '../model/lab-driver.ts';
import { FULL_MESH, crossNodePairs, meshSettings, nightOf, type Mesh } from './mesh.ts';
import { expandCells } from './expand-cells.ts';
import { MATRIX } from './rows.ts';

const node = (
  name: string,
  os: 'linux' | 'windows',
  role: SuiteNode['role'] = 'worker',
): SuiteNode => ({
  name,
  os,
  role,
  ip: '192.168.200.1',
});
/** A lab of `linux` Linux nodes (the first the control plane) and `windows` Windows nodes. */
const lab = (linux: number, windows: number): SuiteNode[] => [
  node('cp1', 'linux', 'control-plane'),
  ...Array.from({ length: linux - 1 }, (_, i) => node(`lin${i + 1}`, 'linux')),
  ...Array.from({ length: windows }, (_, i) => node(`win${i + 1}`, 'windows')),
];
const ring = (rotation: number, peers = 1): Mesh => ({ mode: 'ring', peers, rotation });
const names = (pairs: [SuiteNode, SuiteNode][]) => pairs.map(([a, b]) => `${a.name}>${b.name}`);

describe('mesh', () => {
  it('takes every ordered pair on a full mesh', () => {
    expect(
      names(crossNodePairs({ from: 'linux', to: 'linux' }, lab(3, 0), FULL_MESH)),
    ).to.deep.equal(['lin1>lin2', 'lin1>cp1', 'lin2>lin1', 'lin2>cp1', 'cp1>lin1', 'cp1>lin2']);
  });

  it('takes each node to the next of each OS on a ring: every node a source and a target', () => {
    const nodes = lab(3, 2);
    const within = names(crossNodePairs({ from: 'linux', to: 'linux' }, nodes, ring(0)));
    expect(within).to.deep.equal(['lin1>lin2', 'lin2>cp1', 'cp1>lin1']);
    const across = names(crossNodePairs({ from: 'linux', to: 'windows' }, nodes, ring(0)));
    expect(across).to.have.length(3);
    expect(new Set(across.map((p) => p.split('>')[1]))).to.deep.equal(new Set(['win1', 'win2']));
  });

  it('covers the whole mesh over the nights, one step along the ring each night', () => {
    const nodes = lab(6, 0);
    const full = new Set(names(crossNodePairs({ from: 'linux', to: 'linux' }, nodes, FULL_MESH)));
    const seen = new Set<string>();
    for (let night = 100; night < 105; night++)
      for (const p of names(crossNodePairs({ from: 'linux', to: 'linux' }, nodes, ring(night))))
        seen.add(p);
    expect(seen).to.deep.equal(full);
    // Two peers a night: the 5 other nodes in 3 nights.
    const twice = new Set<string>();
    for (let night = 7; night < 10; night++)
      for (const p of names(crossNodePairs({ from: 'linux', to: 'linux' }, nodes, ring(night, 2))))
        twice.add(p);
    expect(twice).to.deep.equal(full);
  });

  it('grows the matrix linearly in the nodes on a ring, with the square on a full mesh', () => {
    const count = (nodes: SuiteNode[], mesh: Mesh) => expandCells(MATRIX, nodes, mesh).length;
    const [r10, r20] = [count(lab(5, 5), ring(0)), count(lab(10, 10), ring(0))];
    const [f10, f20] = [count(lab(5, 5), FULL_MESH), count(lab(10, 10), FULL_MESH)];
    expect(r20 / r10).to.be.within(1.9, 2.1);
    expect(f20 / f10).to.be.above(3);
  });

  it('reads MESH, MESH_PEERS and MESH_ROTATION; the night is the default rotation', () => {
    const now = new Date('2026-03-01T02:00:00Z');
    expect(meshSettings({}, 'full', now)).to.deep.equal({
      mode: 'full',
      peers: 1,
      rotation: nightOf(now),
    });
    expect(
      meshSettings({ MESH: 'ring', MESH_PEERS: '3', MESH_ROTATION: '0' }, 'full', now),
    ).to.deep.equal(ring(0, 3));
    expect(() => meshSettings({ MESH: 'star' }, 'full', now)).to.throw(
      /^MESH must be one of full, ring, got 'star'/,
    );
    expect(() => meshSettings({ MESH_PEERS: 'two' }, 'ring', now)).to.throw(/MESH_PEERS/);
  });

  it('counts nights in whole UTC days since 1970', () => {
    expect(nightOf(new Date('1970-01-03T23:59:59Z'))).to.equal(2);
    expect(nightOf(new Date('2026-11-28T00:00:00Z'))).to.equal(20_785);
  });

  it('takes the fallback mode for an empty MESH, and MESH_ROTATION over the night', () => {
    const now = new Date('1970-01-11T12:00:00Z');
    expect(meshSettings({ MESH: '', MESH_ROTATION: '3' }, 'ring', now)).to.deep.equal({
      mode: 'ring',
      peers: 1,
      rotation: 3,
    });
    expect(meshSettings({ MESH: 'full' }, 'ring', now)).to.deep.equal({
      mode: 'full',
      peers: 1,
      rotation: 10,
    });
  });

  it('a ring of several peers starts each node rotation * peers places along its ring', () => {
    expect(
      names(crossNodePairs({ from: 'linux', to: 'linux' }, lab(4, 0), ring(1, 2))),
    ).to.deep.equal([
      'lin1>cp1',
      'lin1>lin2',
      'lin2>lin1',
      'lin2>lin3',
      'lin3>lin2',
      'lin3>cp1',
      'cp1>lin3',
      'cp1>lin1',
    ]);
  });

  it("a ring toward the other OS starts at the source's own place among the nodes of its OS", () => {
    expect(
      names(crossNodePairs({ from: 'windows', to: 'linux' }, lab(3, 3), ring(0, 1))),
    ).to.deep.equal(['win1>lin1', 'win2>lin2', 'win3>cp1']);
  });

  it('a ring with more peers than targets takes every target once, in ring order', () => {
    expect(
      names(crossNodePairs({ from: 'linux', to: 'linux' }, lab(3, 0), ring(1, 3))),
    ).to.deep.equal(['lin1>lin2', 'lin1>cp1', 'lin2>cp1', 'lin2>lin1', 'cp1>lin1', 'cp1>lin2']);
  });
});
