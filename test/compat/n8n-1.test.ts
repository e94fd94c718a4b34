/** The packed package in n8n 1.123.81, the latest 1.x, on Node 22 (scripts/runtime-n8n1.sh). */
import { sleep } from '../../harness/n8nProcess';
import { N8nRest } from '../../harness/n8nRest';
import { compatSuite } from './suite';

jest.setTimeout(300_000);

compatSuite({
	script: 'scripts/runtime-n8n1.sh',
	binVar: 'N8N1_BIN',
	nodeDirVar: 'N8N1_NODE_DIR',
	version: '1.123.81',
	// A read pool puts 1.x's SQLite in WAL mode (2.x's default), so the suite can read executions
	// while n8n writes; without it a read meets "database is locked".
	env: { DB_SQLITE_POOL_SIZE: '2' },
	// 1.x has no publish:workflow, and its update:workflow is read only at start, where n8n calls
	// no webhook method: activate through the editor's REST call instead.
	activate: async (n8n, id) => {
		// 1.x answers /healthz/readiness before it has mounted its REST controllers (404 until then;
		// a connection may also be reset meanwhile, seen once under load).
		const restStatus = async () => {
			try {
				const response = await fetch(`${n8n.baseUrl}/rest/settings`);
				await response.arrayBuffer();
				return response.status;
			} catch {
				return 0;
			}
		};
		const deadline = Date.now() + 60_000;
		while ((await restStatus()) !== 200) {
			if (Date.now() > deadline) throw new Error('n8n mounted no REST API within 60 s');
			await sleep(250);
		}
		const rest = new N8nRest(n8n.baseUrl);
		await rest.setupOwner('owner@compat.test', 'Compat-Suite-Passw0rd');
		const { data } = await rest.call<{ data: { versionId: string } }>('GET', `/workflows/${id}`);
		await rest.call('POST', `/workflows/${id}/activate`, { versionId: data.versionId });
	},
});
