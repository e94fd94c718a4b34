/** Small shared helpers: error type, ids, hashing and address shapes. */
import { createHash, randomBytes, randomUUID } from 'node:crypto';

/** Thrown by handlers; the router turns it into `{error, ...extra}` with the given status. */
export class ApiError extends Error {
	constructor(
		public status: number,
		public error: string,
		public extra: Record<string, unknown> = {},
		public headers: Record<string, string> = {},
	) {
		super(error);
	}
}

export function fail(status: number, error: string, message?: string, extra: Record<string, unknown> = {}): never {
	throw new ApiError(status, error, message === undefined ? extra : { message, ...extra });
}

export const uuid = (): string => randomUUID();
export const hex = (bytes: number): string => randomBytes(bytes).toString('hex');

/** Deterministic uuid-shaped id, so the demo seed can be referenced from examples. */
export function seedUuid(name: string): string {
	const h = createHash('sha256').update(`clearinghouse-sandbox:${name}`).digest('hex');
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** Base58 of `n` pseudo-random bytes derived from a seed string (solana-shaped addresses). */
export function base58From(seed: string, n = 32): string {
	let bytes = createHash('sha256').update(seed).digest();
	while (bytes.length < n) bytes = Buffer.concat([bytes, createHash('sha256').update(bytes).digest()]);
	let num = BigInt('0x' + bytes.subarray(0, n).toString('hex'));
	let out = '';
	while (num > 0n) {
		out = B58[Number(num % 58n)] + out;
		num /= 58n;
	}
	return out.padStart(43, '1').slice(0, 44);
}

export function evmFrom(seed: string): string {
	return '0x' + createHash('sha256').update(seed).digest('hex').slice(0, 40);
}

export function txHashFor(chain: string, seed: string): string {
	return chain === 'solana'
		? base58From('tx:' + seed, 64).slice(0, 44) + base58From('tx2:' + seed).slice(0, 43)
		: '0x' + createHash('sha256').update(seed).digest('hex');
}

export const EVM_CHAINS = new Set(['ethereum', 'base']);
const EVM_RE = /^0x[0-9a-fA-F]{40}$/;
const SOL_RE = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** Normalizes an address for its chain (EVM lowercased); null when the shape is wrong. */
export function normalizeAddress(chain: string, address: string): string | null {
	const a = address.trim();
	if (EVM_CHAINS.has(chain)) return EVM_RE.test(a) ? a.toLowerCase() : null;
	if (chain === 'solana') return SOL_RE.test(a) ? a : null;
	return a.length > 0 ? a : null;
}

/** Stable JSON (sorted keys) so two bodies can be compared for idempotency. */
export function canonical(value: unknown): string {
	if (Array.isArray(value)) return '[' + value.map(canonical).join(',') + ']';
	if (value && typeof value === 'object') {
		const o = value as Record<string, unknown>;
		return (
			'{' +
			Object.keys(o)
				.filter((k) => o[k] !== undefined)
				.sort()
				.map((k) => JSON.stringify(k) + ':' + canonical(o[k]))
				.join(',') +
			'}'
		);
	}
	return JSON.stringify(value ?? null);
}

export const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

/** Money in the sandbox is kept in pips (1/10000 USD) so sums stay exact. */
export const toPips = (usd: number): number => Math.round(usd * 10000);
export const fromPips = (p: number): number => p / 10000;
export function isPipMultiple(usd: number): boolean {
	return Number.isFinite(usd) && Math.abs(usd * 10000 - Math.round(usd * 10000)) < 1e-6 && decimals(usd) <= 4;
}
function decimals(n: number): number {
	const s = String(n);
	if (s.includes('e-')) return Number(s.split('e-')[1]) + (s.split('e')[0].split('.')[1]?.length ?? 0);
	return s.split('.')[1]?.length ?? 0;
}

/**
 * A record keyed by client-chosen strings (idempotency keys, ...): no prototype, so `__proto__` or
 * `constructor` are plain keys. Optionally filled from a loaded JSON object.
 */
export function dict<T>(from?: Record<string, T> | null): Record<string, T> {
	const d = Object.create(null) as Record<string, T>;
	if (from) for (const k of Object.keys(from)) d[k] = from[k];
	return d;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
