/**
 * `npm start`: the sandbox (demo seed) and a local n8n with this package installed from its packed
 * tarball, the sandbox credential and the example workflows imported. Ctrl-C stops both.
 * Uses the n8n process harness (harness/) so that what a newcomer sees is what the tests run.
 */
import { join } from 'node:path';

import { exampleFiles, loadExample, withOutbox } from '../harness/examples';
import { N8nInstance } from '../harness/n8nProcess';
import { repoRoot } from '../harness/runtime';
import { sandboxCredential, startSandbox } from '../harness/sandbox';

const SANDBOX_PORT = Number(process.env.SANDBOX_PORT ?? 4010);
const REWARDS_PORT = Number(process.env.SANDBOX_REWARDS_PORT ?? 4011);
const N8N_PORT = Number(process.env.N8N_PORT ?? 5678);
const log = (message: string) => console.log(`[start] ${message}`);

async function main() {
	log('starting the sandbox (demo seed)');
	const sandbox = await startSandbox({ port: SANDBOX_PORT, rewardsPort: REWARDS_PORT, allowLoopbackWebhooks: [N8N_PORT], seed: 'demo' });
	// Kept between runs (your own workflows and the editor account stay); examples are re-imported.
	log('building and packing the package, installing it into .e2e/dev');
	const n8n = await N8nInstance.create({ root: join(repoRoot, '.e2e', 'dev'), port: N8N_PORT, keep: true });
	let stopping = false;
	const stop = async (code = 0) => {
		if (stopping) return;
		stopping = true;
		log('stopping n8n and the sandbox');
		await n8n.stop();
		await sandbox.close();
		process.exit(code);
	};
	process.on('SIGINT', () => void stop());
	process.on('SIGTERM', () => void stop());

	log('importing the sandbox credential and the example workflows');
	await n8n.importCredential(sandboxCredential(sandbox));
	// Where messages go → outboxUrl: the sandbox started here (SANDBOX_PORT may move it off 4010).
	const examples = exampleFiles().map((file) => withOutbox(loadExample(file), sandbox.mainUrl));
	await n8n.importWorkflows(examples);
	log(`starting n8n on ${n8n.baseUrl} (about 10 s)`);
	await n8n.start();

	console.log(`
  n8n editor:   ${n8n.baseUrl}/   (first visit: create the local owner account; it stays on this machine)
  Sandbox API:  ${sandbox.mainUrl}/api/v1   rewards: ${sandbox.rewardsUrl}/api/v1   key: ${sandbox.apiKey}
  Console:      ${sandbox.mainUrl}/   (open in a browser: fund and settle orders, replay deliveries, inject faults)
  Operator API: ${sandbox.operatorUrl}/state   (fund orders, close the netting window, inject faults)
  n8n data:     ${n8n.userFolder}   log: ${join(n8n.root, 'n8n-start.log')}

  Imported, with the credential "Clearinghouse sandbox":
${examples.map((w) => `    - ${w.name}`).join('\n')}

  Next: open "Example 1", click "Execute workflow": three payment orders appear in the sandbox, and INV-1004 fails on purpose on the error branch.
  Publish "Example 2" or "Example 3" to receive signed events (WEBHOOK_URL is ${n8n.env.WEBHOOK_URL}).
  Move an order along in the console (${sandbox.mainUrl}/): Fund and attribute, then Close the netting window.
  Ctrl-C stops n8n and the sandbox.
`);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
