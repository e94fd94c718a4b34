import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

import { repoRoot, runtime } from '../../harness/runtime';
import type { SandboxHandle } from '../../harness/sandbox';

/**
 * The sandbox as its own process (its CLI, `npm run sandbox`), not inside the bench process: the
 * undici baseline then competes with the sandbox for CPU exactly as n8n does, instead of sharing
 * one event loop with it.
 */
export async function startSandboxProcess(options: { allowLoopbackWebhooks?: readonly number[] } = {}): Promise<SandboxHandle & { pid: number }> {
	const args = ['-r', 'ts-node/register/transpile-only', join(repoRoot, 'sandbox', 'main.ts'), '--port', '0', '--rewards-port', '0', '--host', '127.0.0.1'];
	if (options.allowLoopbackWebhooks?.length) args.push(`--allow-loopback-webhooks=${options.allowLoopbackWebhooks.join(',')}`);
	const child: ChildProcess = spawn(runtime().node, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
	let out = '';
	let err = '';
	child.stderr?.on('data', (chunk: Buffer) => (err = (err + chunk.toString()).slice(-4000)));
	const values = await new Promise<Record<string, string>>((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`sandbox did not start:\n${out}\n${err}`)), 60_000);
		child.on('exit', (code) => reject(new Error(`sandbox exited ${code}:\n${out}\n${err}`)));
		child.stdout?.on('data', (chunk: Buffer) => {
			out += chunk.toString();
			if (!/^SANDBOX_READY$/m.test(out)) return;
			clearTimeout(timer);
			const found: Record<string, string> = {};
			for (const line of out.split('\n')) {
				const match = /^(CLEARINGHOUSE_[A-Z_]+)=(.*)$/.exec(line.trim());
				if (match) found[match[1]] = match[2];
			}
			resolve(found);
		});
	});
	child.stdout?.resume();
	const mainUrl = values.CLEARINGHOUSE_BASE_URL;
	return {
		pid: child.pid!,
		mainUrl,
		rewardsUrl: values.CLEARINGHOUSE_REWARDS_URL,
		apiKey: values.CLEARINGHOUSE_API_KEY,
		operatorUrl: `${mainUrl}/sandbox`,
		close: async () => {
			if (child.exitCode !== null) return;
			const exited = new Promise<void>((done) => child.once('exit', () => done()));
			child.kill('SIGTERM');
			await exited;
		},
	};
}
