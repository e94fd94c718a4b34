/**
 * The sandbox's network edge: which Host names its servers answer (a DNS-rebinding page sends its own
 * name, which is never one of these), which clients count as this machine, and the address to connect to.
 */
import type { Socket } from 'node:net';
import { isIP } from 'node:net';

/** The names every sandbox answers to, whatever it is bound to. */
export const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** `0.0.0.0` and `::`: listen on every interface; never a name a client connects to. */
export const isUnspecified = (host: string): boolean => host === '0.0.0.0' || host === '::' || host === '[::]';

export const isLoopbackAddress = (addr: string | undefined): boolean => !!addr && (addr === '::1' || addr.startsWith('127.') || addr.startsWith('::ffff:127.'));

/** An address or name as it appears in a URL and in a Host header (IPv6 in brackets), lower case. */
export const urlHost = (host: string): string => {
	const h = host.toLowerCase();
	return h.includes(':') && !h.startsWith('[') ? `[${h}]` : h;
};

/**
 * A name given with --public-host: a DNS name or an IP address, without scheme, port or path.
 * Returns it as a Host header carries it, or throws a message naming the flag.
 */
export function publicHostName(raw: string): string {
	const bare = raw.trim().replace(/^\[(.*)\]$/, '$1');
	if (isIP(bare) || /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i.test(bare)) return urlHost(bare);
	throw new Error(`--public-host takes a host name or an IP address without scheme or port (e.g. host.docker.internal), not "${raw}"`);
}

/**
 * The Host header values a server on `port` answers: the loopback names, the bound address (unless it
 * is 0.0.0.0 or ::) and the names the user added, each with the port (and bare on port 80).
 */
export function ownHostNames(bound: string, port: number, publicHosts: readonly string[] = []): Set<string> {
	const names = new Set([...LOOPBACK_NAMES, ...(isUnspecified(bound) ? [] : [urlHost(bound)]), ...publicHosts.map(publicHostName)]);
	const out = new Set<string>();
	for (const n of names) {
		out.add(`${n}:${port}`);
		if (port === 80) out.add(n);
	}
	return out;
}

/**
 * True when the client is this machine: a loopback address, or a connection to one of this machine's
 * own non-loopback addresses from that same address (the kernel's choice of source for a local
 * destination; a packet from elsewhere carrying a local source address is dropped as a martian).
 */
export function clientIsThisMachine(socket: Pick<Socket, 'remoteAddress' | 'localAddress'>): boolean {
	const remote = socket.remoteAddress;
	return isLoopbackAddress(remote) || (!!remote && remote === socket.localAddress);
}

/** The address a local client connects to for a server bound to `bound` (0.0.0.0 → 127.0.0.1, :: → ::1). */
export function connectAddress(bound: string): string {
	if (bound === '0.0.0.0') return '127.0.0.1';
	if (bound === '::' || bound === '[::]') return '::1';
	return bound;
}
