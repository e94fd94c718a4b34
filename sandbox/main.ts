/** CLI: `npm run sandbox -- [--port 4010] [--rewards-port 4011] [--seed demo|empty] [--time-scale N] [--data-file PATH] [--api-key KEY] [--allow-loopback-webhooks] [--resolve-webhook-hosts] [--host H]`. */
import { isLoopbackAddress, publicHostName, urlHost } from './edge';
import { startSandbox, type Sandbox, type SandboxOptions } from './server';

function parseArgs(argv: string[]): SandboxOptions {
	const o: SandboxOptions = { port: 4010, rewardsPort: 4011 };
	for (let i = 0; i < argv.length; i++) {
		const [flag, inline] = argv[i].split('=', 2);
		const value = () => inline ?? argv[++i];
		switch (flag) {
			case '--port':
				o.port = Number(value());
				break;
			case '--rewards-port':
				o.rewardsPort = Number(value());
				break;
			case '--seed': {
				const s = value();
				if (s !== 'demo' && s !== 'empty') throw new Error('--seed must be demo or empty');
				o.seed = s;
				break;
			}
			case '--time-scale':
				o.timeScale = Number(value());
				break;
			case '--data-file':
				o.dataFile = value();
				break;
			case '--api-key':
				o.apiKey = value();
				break;
			case '--host':
				o.host = value();
				break;
			case '--allow-loopback-webhooks':
				o.allowLoopbackWebhooks = true;
				break;
			case '--resolve-webhook-hosts':
				o.resolveWebhookHosts = true;
				break;
			case '--log':
				o.log = true;
				break;
			case '--help':
			case '-h':
				console.log(
					'usage: npm run sandbox -- [--port 4010] [--rewards-port 4011] [--seed demo|empty] [--time-scale N] [--data-file PATH] [--api-key KEY] [--allow-loopback-webhooks] [--resolve-webhook-hosts] [--host 127.0.0.1]',
				);
				process.exit(0);
				break;
			default:
				throw new Error(`unknown flag ${argv[i]}`);
		}
	}
	if (!Number.isInteger(o.port) || !Number.isInteger(o.rewardsPort)) throw new Error('ports must be integers');
	if (o.timeScale !== undefined && !(o.timeScale > 0)) throw new Error('--time-scale must be a positive number');
	return o;
}

/**
 * Bound beyond loopback: the names the servers answer, and the URLs n8n in a container enters in its
 * credential (host.docker.internal: Docker Desktop has it, Linux needs --add-host).
 */
function reachLines(opts: SandboxOptions, sb: Sandbox): string[] {
	const host = opts.host ?? '127.0.0.1';
	if (isLoopbackAddress(host)) return [];
	const [mainPort, rewardsPort] = [sb.mainUrl, sb.rewardsUrl].map((u) => new URL(u).port);
	const docker = 'host.docker.internal';
	const named = (opts.publicHosts ?? []).map(publicHostName).includes(docker);
	return [
		`Listening on: ${urlHost(host)} (ports ${mainPort} and ${rewardsPort}); it answers only the Host names ${sb.hostNames.main.join(', ')}`,
		`n8n in Docker: Base URL http://${docker}:${mainPort}, Rewards URL http://${docker}:${rewardsPort}` +
			(named ? '' : ` (start the sandbox with --public-host ${docker} first)`) +
			`; on Linux run the container with --add-host=${docker}:host-gateway`,
	];
}

async function main(): Promise<void> {
	const opts = parseArgs(process.argv.slice(2));
	const sb = await startSandbox(opts);
	// The seed, read as any client on this machine would (sb.operatorUrl is a loopback or the bound address).
	const answer = await fetch(`${sb.operatorUrl}/state`);
	if (!answer.ok) {
		await sb.close();
		throw new Error(`its operator API at ${sb.operatorUrl} answered HTTP ${answer.status} when reading the seed: ${(await answer.text()).slice(0, 200)}`);
	}
	const state = (await answer.json()) as {
		users: { id: string; label: string; accountId: string; wallets: { chain: string; address: string; status: string }[] }[];
		subaccounts: { id: string; apiKey: string }[];
	};
	const out = [
		`CLEARINGHOUSE_BASE_URL=${sb.mainUrl}`,
		`CLEARINGHOUSE_REWARDS_URL=${sb.rewardsUrl}`,
		`CLEARINGHOUSE_API_KEY=${sb.apiKey}`,
		'SANDBOX_READY',
		`Main API:     ${sb.mainUrl}/api/v1   (header x-api-key: ${sb.apiKey})`,
		`Rewards API:  ${sb.rewardsUrl}/api/v1/rewards`,
		`Console:      ${sb.mainUrl}/   (in a browser: orders, wallets, deliveries; fund, settle, replay with a click)`,
		`Operator API: ${sb.operatorUrl}   (GET /sandbox/state lists ids and wallets)`,
		...reachLines(opts, sb),
	];
	for (const u of state.users) {
		out.push(`User ${u.label}: id ${u.id} (account ${u.accountId})`);
		for (const w of u.wallets) out.push(`  ${w.chain.padEnd(8)} ${w.address} ${w.status}`);
	}
	for (const s of state.subaccounts) out.push(`Subaccount ${s.id} key ${s.apiKey}`);
	process.stdout.write(out.join('\n') + '\n');
	let stopping = false;
	const stop = () => {
		if (stopping) return;
		stopping = true;
		sb.close().then(
			() => process.exit(0),
			() => process.exit(1),
		);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((e) => {
	console.error(`sandbox failed to start: ${(e as Error).message}`);
	process.exit(1);
});
