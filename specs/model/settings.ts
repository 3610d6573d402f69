/** Settings the suite reads from its environment: each bad value is named with what it allows. */
import { LabError } from '../../lab/errors.ts';

/** A setting of the suite has a value it cannot use. */
export class SettingError extends LabError {
  override readonly name = 'SettingError';
}

/** A positive integer from the environment, else `fallback`; anything else names the variable. */
export function positiveIntSetting(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  if (!/^[1-9][0-9]*$/.test(text)) {
    throw new SettingError(`${name} must be a positive integer, got "${text}"`, {
      hint: `unset ${name} for the default (${fallback})`,
    });
  }
  return Number(text);
}
