import { expect } from 'chai';
import {
  knownLimitReason,
  leftOutReason,
  literal,
  loadUpstreamCatalogue,
  parseUpstreamCatalogue,
  selectionFor,
  UpstreamCatalogueError,
} from './upstream-catalogue.ts';

const MINIMAL = `
universe: '\\[sig-network\\]'
focus:
  - { pattern: 'Granular', why: paths }
  - { pattern: 'DNS should', why: dns }
leftOut:
  - { pattern: '\\[Serial\\]', reason: runs alone }
  - { pattern: 'for services', reason: needs PTR, when: { clusterDns: hl-cluster-dns } }
knownLimits:
  - { test: '[sig-network] DNS should provide DNS for pods for Hostname', reason: no hostname records, when: { clusterDns: hl-cluster-dns } }
crossCheck: []
`;

describe('upstream catalogue', function () {
  it('the project catalogue loads, and every cross-check names matrix rows by id', function () {
    const catalogue = loadUpstreamCatalogue();
    expect(catalogue.focus.length).to.be.greaterThan(3);
    expect(catalogue.crossCheck.length).to.be.greaterThan(5);
    for (const entry of catalogue.crossCheck) {
      expect(entry.rows.every((r) => /^[a-z-]+\//.test(r))).to.equal(true, entry.test);
    }
  });

  it('a bad entry is an error naming its field path', function () {
    const bad = MINIMAL.replace("pattern: 'Granular'", "pattern: 'Granular('");
    expect(() => parseUpstreamCatalogue(bad, 'x.yaml'))
      .to.throw(UpstreamCatalogueError)
      .with.property('message')
      .that.matches(/focus\[0\]\.pattern: not a regular expression/);
    const lookahead = MINIMAL.replace("pattern: 'Granular'", "pattern: 'Gran(?!x)ular'");
    expect(() => parseUpstreamCatalogue(lookahead, 'x.yaml')).to.throw(
      /focus\[0\]\.pattern: lookarounds/,
    );
    const noReason = MINIMAL.replace('reason: runs alone', 'why: runs alone');
    expect(() => parseUpstreamCatalogue(noReason, 'x.yaml')).to.throw(/leftOut\[0\]/);
  });

  it('a known limit listed twice is refused', function () {
    const twice = MINIMAL.replace(
      'crossCheck: []',
      "  - { test: '[sig-network] DNS should provide DNS for pods for Hostname', reason: again }\ncrossCheck: []",
    );
    expect(() => parseUpstreamCatalogue(twice, 'x.yaml')).to.throw(/twice/);
  });

  it('the default selection joins the focus and the left-out patterns that apply to the lab', function () {
    const catalogue = parseUpstreamCatalogue(MINIMAL, 'x.yaml');
    const stand = selectionFor(catalogue, { clusterDns: 'hl-cluster-dns' });
    expect(stand).to.deep.equal({
      focus: '(Granular)|(DNS should)',
      skip: '(\\[Serial\\])|(for services)',
      focusKind: 'default',
    });
    const core = selectionFor(catalogue, { clusterDns: 'coredns' });
    expect(core.skip).to.equal('(\\[Serial\\])');
  });

  it('--focus and --skip replace the defaults they name, and only those', function () {
    const catalogue = parseUpstreamCatalogue(MINIMAL, 'x.yaml');
    const lab = { clusterDns: 'coredns' } as const;
    expect(selectionFor(catalogue, lab, { focus: 'Conntrack' })).to.deep.equal({
      focus: 'Conntrack',
      skip: '(\\[Serial\\])',
      focusKind: 'given',
    });
    expect(selectionFor(catalogue, lab, { skip: '' }).skip).to.equal('');
  });

  it('reasons follow the lab: a `when` entry applies only to labs that match it', function () {
    const catalogue = parseUpstreamCatalogue(MINIMAL, 'x.yaml');
    const name = '[sig-network] DNS should provide DNS for services';
    expect(leftOutReason(catalogue, name, { clusterDns: 'hl-cluster-dns' })).to.equal('needs PTR');
    expect(leftOutReason(catalogue, name, { clusterDns: 'coredns' })).to.equal(undefined);
    const limit = '[sig-network] DNS should provide DNS for pods for Hostname';
    expect(knownLimitReason(catalogue, limit, { clusterDns: 'hl-cluster-dns' })).to.equal(
      'no hostname records',
    );
    expect(knownLimitReason(catalogue, limit, { clusterDns: 'coredns' })).to.equal(undefined);
    expect(knownLimitReason(catalogue, `${limit} `, { clusterDns: 'hl-cluster-dns' })).to.equal(
      undefined,
    );
  });

  it('literal() matches a spec name and nothing else, brackets and parentheses included', function () {
    const name =
      '[sig-network] Networking Granular Checks: Services should function for pod-Service(hostNetwork): udp';
    const re = new RegExp(`${literal(name)}$`);
    expect(re.test(`[Top Level] ${name}`)).to.equal(true);
    expect(re.test(name.replace('(hostNetwork)', 'hostNetwork'))).to.equal(false);
    expect(re.test(`${name} [Slow]`)).to.equal(false);
  });

  it('the cross-checked selection is not the default focus, and keeps the left-out list', function () {
    const catalogue = parseUpstreamCatalogue(
      MINIMAL.replace(
        'crossCheck: []',
        "crossCheck:\n  - { test: '[sig-network] DNS should x [Conformance]', rows: [dns/fqdn/linux] }",
      ),
      'x.yaml',
    );
    expect(
      selectionFor(catalogue, { clusterDns: 'coredns' }, { crossChecked: true }),
    ).to.deep.equal({
      focus: '(\\[sig-network\\] DNS should x \\[Conformance\\]$)',
      skip: '(\\[Serial\\])',
      focusKind: 'cross-checked',
    });
  });
});
