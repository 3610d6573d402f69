import { expect } from 'chai';
import { InfrastructureError } from './infrastructure-error.ts';

describe('InfrastructureError', () => {
  it('is named so in what the suite prints', () => {
    expect(new InfrastructureError('nodes not ready')).to.include({
      name: 'InfrastructureError',
      message: 'nodes not ready',
    });
  });
});
