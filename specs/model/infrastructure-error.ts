/** The lab cannot carry the suite (not up, nodes not ready, workloads not deployable). */
import { LabError } from '../../lab/errors.ts';

export class InfrastructureError extends LabError {
  override readonly name = 'InfrastructureError';
}
