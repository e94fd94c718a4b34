/**
 * A Linux network namespace joined to this one by a veth pair, made and removed by the test that uses
 * it: the stand-in for a Docker container (no container runtime on the test machines). This side of the
 * pair is the container's `host.docker.internal`; the far side, the container's own address. Both
 * addresses are the namespace's own (10.213.0.0/16): no test ever targets any other address.
 * Needs root and iproute2's `ip`; netnsUnavailable() says why not.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export interface Netns {
	name: string;
	/** This side of the veth pair (in this process's namespace): what the namespace reaches this machine at. */
	hostAddress: string;
	/** The far side, inside the namespace. */
	innerAddress: string;
	/** `ip netns exec <name>` before a command: runs it inside the namespace. */
	execPrefix: string[];
	/** Deletes the namespace and with it both ends of the pair; safe to call twice. */
	remove(): void;
}

const IP_PATHS = ['/usr/sbin/ip', '/sbin/ip', '/usr/bin/ip', '/bin/ip'];
const ipBin = (): string | undefined => IP_PATHS.find((p) => existsSync(p));

/** Why a namespace cannot be made here, or null when it can. */
export function netnsUnavailable(): string | null {
	if (process.platform !== 'linux') return 'network namespaces are Linux only';
	if (process.getuid?.() !== 0) return 'making a network namespace needs root (CI runs as root)';
	if (!ipBin()) return "iproute2's ip is not installed (apt-get install iproute2)";
	return null;
}

let made = 0;

/** Makes the namespace, the veth pair and both addresses (a /24 of 10.213.0.0/16 per jest worker and call). */
export function createNetns(tag: string): Netns {
	const why = netnsUnavailable();
	if (why) throw new Error(why);
	const ip = ipBin()!;
	const worker = (Number(process.env.JEST_WORKER_ID ?? 0) + Number(process.env.TEST_PORT_BAND_OFFSET ?? 0)) % 24;
	const subnet = `10.213.${worker * 10 + (made++ % 10)}`;
	// Interface names have at most 15 characters; the pid keeps parallel runs apart.
	const id = `${tag.slice(0, 4)}${process.pid % 100000}${made}`;
	const name = `ch-${id}`;
	const [outer, inner] = [`cho${id}`, `chi${id}`].map((n) => n.slice(0, 15));
	const run = (...args: string[]) => execFileSync(ip, args, { stdio: ['ignore', 'ignore', 'pipe'] });
	const netns: Netns = {
		name,
		hostAddress: `${subnet}.1`,
		innerAddress: `${subnet}.2`,
		execPrefix: [ip, 'netns', 'exec', name],
		remove() {
			for (const args of [
				['netns', 'del', name],
				['link', 'del', outer],
			]) {
				try {
					run(...args);
				} catch {
					// already gone
				}
			}
		},
	};
	try {
		run('netns', 'add', name);
		run('link', 'add', outer, 'type', 'veth', 'peer', 'name', inner);
		run('link', 'set', inner, 'netns', name);
		run('addr', 'add', `${netns.hostAddress}/24`, 'dev', outer);
		run('link', 'set', outer, 'up');
		run('netns', 'exec', name, ip, 'addr', 'add', `${netns.innerAddress}/24`, 'dev', inner);
		run('netns', 'exec', name, ip, 'link', 'set', inner, 'up');
		run('netns', 'exec', name, ip, 'link', 'set', 'lo', 'up');
	} catch (e) {
		netns.remove();
		throw new Error(`could not make the network namespace ${name}: ${(e as { stderr?: Buffer }).stderr?.toString().trim() || (e as Error).message}`);
	}
	return netns;
}
