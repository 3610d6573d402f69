import { expect } from 'chai';
import { globToRegExp } from './glob.ts';

const matches = (glob: string, id: string): boolean => globToRegExp(glob).test(id);

describe('globs over cell ids', function () {
  it('`*` matches within one segment only, never across a slash', function () {
    expect(matches('dns/*/windows', 'dns/short-name/windows')).to.be.true;
    expect(matches('dns/*/windows', 'dns/short-name/extra/windows')).to.be.false;
    expect(matches('pod-to-pod/*', 'pod-to-pod/windows-to-linux/cross-node/win2/lin1/ip')).to.be
      .false;
    expect(matches('pod-to-pod/*-to-linux', 'pod-to-pod/windows-to-linux')).to.be.true;
  });

  it('`**` matches across segments, and nothing', function () {
    expect(matches('pod-to-pod/**', 'pod-to-pod/windows-to-linux/cross-node/win2/lin1/ip')).to.be
      .true;
    expect(matches('**/via-dns', 'a/b/via-dns')).to.be.true;
    expect(matches('a/**b', 'a/b')).to.be.true;
  });

  it('matches the whole id: no prefix or suffix of it', function () {
    expect(matches('dns/fqdn', 'dns/fqdn/windows')).to.be.false;
    expect(matches('fqdn/windows', 'dns/fqdn/windows')).to.be.false;
    expect(matches('dns/fqdn/windows', 'dns/fqdn/windows')).to.be.true;
  });

  it('takes every other character literally', function () {
    expect(matches('a.b', 'axb')).to.be.false;
    expect(matches('a.b', 'a.b')).to.be.true;
    expect(matches('a+(b)|c', 'a+(b)|c')).to.be.true;
    expect(matches('a+(b)|c', 'aa(b)')).to.be.false;
    expect(matches('[ab]?{1}^$\\', '[ab]?{1}^$\\')).to.be.true;
    expect(matches('[ab]', 'a')).to.be.false;
  });
});
