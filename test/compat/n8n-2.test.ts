/** The packed package in n8n 2.40.7, the pinned 2.x, on Node 24 (scripts/runtime.sh). */
import { compatSuite } from './suite';

jest.setTimeout(300_000);

compatSuite({
	script: 'scripts/runtime.sh',
	binVar: 'N8N_BIN',
	nodeDirVar: 'RUNTIME_NODE_DIR',
	version: '2.40.7',
	// A running n8n picks up publish:workflow at its next reconcile.
	activate: async (n8n, id) => await n8n.publish(id),
});
