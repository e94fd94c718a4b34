/**
 * The sandbox command (`npx n8n-nodes-clearinghouse-sandbox`, `npm run sandbox -- …` in a clone): parses
 * the flags (cli.ts, the one table that --help prints), starts the sandbox, prints the credential's
 * values and the seed, and serves until SIGINT, SIGTERM or SIGHUP, or until the npm that started it is
 * gone (watchNpmParent).
 */
import * as fs from 'node:fs';
import { COMMAND, helpText, parseCli } from './cli';
import { isLoopbackAddress, publicHostName, urlHost } from './edge';
import { startSandbox, type Sandbox, type SandboxOptions } from './server';

/**
 * npm (10 and 11: @npmcli/run-script) runs a bin as `npm → sh -c '<bin> …' → node` and forwards SIGTERM
 * and SIGINT to the `sh` only, which dies without passing them on: `kill <npx pid>` (systemd without
 * control-group kill, pm2, `docker stop`, `timeout`, a test runner) would leave this process holding both
 * ports. So when npm started it (npm sets npm_lifecycle_event for `npx`, `npm exec` and `npm run`), it
 * stops once the process that started it is gone: its parent changed (the `sh` died, this process was
 * re-parented), or, on Linux, the npm above that `sh` is gone (SIGKILL). Checked every 500 ms.
 */
function watchNpmParent(stop: () => void): void {
	if (process.env.npm_lifecycle_event === undefined) return;
	const parent = process.ppid;
	const grandparent = parentOf(parent);
	const timer = setInterval(() => {
		if (process.ppid !== parent || (grandparent !== undefined && !alive(grandparent))) {
			clearInterval(timer);
			stop();
		}
	}, 500);
	timer.unref();
}

/** A process's parent on Linux (/proc), undefined elsewhere or when it is init (pid 1: a container's npm, systemd). */
function parentOf(pid: number): number | undefined {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
		return ppid > 1 ? ppid : undefined;
	} catch {
		return undefined;
	}
}

function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (e) {
		return (e as NodeJS.ErrnoException).code === 'EPERM';
	}
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
	let opts: SandboxOptions;
	try {
		const parsed = parseCli(process.argv.slice(2));
		if (parsed.help) {
			process.stdout.write(helpText());
			return;
		}
		opts = parsed.options;
	} catch (e) {
		process.stderr.write(`n8n-nodes-clearinghouse-sandbox: ${(e as Error).message}\nThe flags: ${COMMAND} --help\n`);
		process.exitCode = 2;
		return;
	}
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
	process.on('SIGHUP', stop);
	watchNpmParent(stop);
}

main().catch((e) => {
	console.error(`sandbox failed to start: ${(e as Error).message}`);
	process.exit(1);
});
