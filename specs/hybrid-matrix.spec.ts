/** The conformance suite: the hybrid matrix against the current lab (see specs/engine/matrix-suite.ts). */
import { describeLab } from './drivers/lab-info.ts';
import { openDriver } from './drivers/open-driver.ts';
import { defineMatrixSuite } from './engine/matrix-suite.ts';
import { suiteSettings } from './engine/suite-settings.ts';

await defineMatrixSuite({
  settings: () => suiteSettings(process.env, process.argv),
  openDriver: (settings) => openDriver(process.env, settings.kubernetes),
  describeLab: () => describeLab(process.env),
});
