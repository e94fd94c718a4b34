/**
 * The packed package in one n8n: the version (or npm dist-tag, such as `latest`) in
 * CLEARINGHOUSE_COMPAT_N8N_VERSION. `npm run test:compat` (scripts/test-compat.sh) runs this file
 * once per version it tests; without it, the n8n scripts/runtime.sh pins.
 */
import { compatSuite } from './support';

jest.setTimeout(300_000);

compatSuite(process.env.CLEARINGHOUSE_COMPAT_N8N_VERSION ?? '');
