import { randomBytes } from 'crypto';
import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { ApiContext } from './transport';
import { apiRequest, listPages } from './transport';

/**
 * Recovery of one webhook endpoint after its receiver was away, shared by the trigger (on publish) and
 * Webhook Endpoint → Recover:
 * 1. A `DISABLED` endpoint is re-enabled; with `onlyDisabledByFailures`, only one the service disabled
 *    itself (one disabled through the API is left alone: replays to it would only be SKIPPED).
 * 2. Per event of the delivery log since `since`: when none of its deliveries was `DELIVERED` or is still
 *    on its way, one `FAILED`, `SKIPPED` or overdue `PENDING` delivery is replayed, oldest event first.
 * 3. One recovery at a time per endpoint, across processes. The API has no compare-and-set, so the lease
 *    is a marker at the end of the endpoint's description, read back 2 s after it is written and again
 *    before each replay; a recovery that meets another's live marker replays nothing, or stops. What
 *    remains: a replay sent more than 2 s after the read before it can meet the same replay by the other.
 *
 * Nothing is emitted from the list (it is not signed): a replay is a new signed delivery of the event. An
 * event with a `DELIVERED` delivery is never replayed, which keeps a catch-up from running it twice.
 */

/** Statuses of a delivery that never reached the receiver and will not be tried again by the service. */
const DEAD = new Set(['FAILED', 'SKIPPED']);
/** Statuses of a delivery the service is still working on. */
const ON_ITS_WAY = new Set(['PENDING', 'DISPATCHED']);

export const DEFAULT_MAX_AGE_MS = 7 * 24 * 3600_000;
export const DEFAULT_MAX_REPLAYS = 100;
/** A `PENDING` delivery older than this is stuck: the service gives up (`FAILED`) after about half a day. */
const DEFAULT_PENDING_OVERDUE_MS = 24 * 3600_000;
const PAGE_SIZE = 1000;
/** At most this many pages of the log are read per endpoint and call (bounds the work of one activation). */
const MAX_PAGES = 10;

/** The service disables an endpoint after this many consecutive failed deliveries (spec: Delivery semantics). */
export const AUTO_DISABLE_AFTER = 10;

/**
 * Whether the service disabled the endpoint itself (the API gives no reason; a disabled endpoint gets no
 * more attempts, so one disabled through the API has fewer failures). An unknown count fails closed.
 */
export function disabledByFailures(endpoint: IDataObject): boolean {
	return endpoint.status === 'DISABLED' && typeof endpoint.consecutiveFailures === 'number' && endpoint.consecutiveFailures >= AUTO_DISABLE_AFTER;
}

/** This n8n's WEBHOOK_URL from `$execution.resumeUrl` (`<WEBHOOK_URL><waiting path>/<execution id>`), or undefined. */
export function webhookBaseOf(resumeUrl: unknown): string | undefined {
	if (typeof resumeUrl !== 'string') return undefined;
	let url: URL;
	try {
		url = new URL(resumeUrl);
	} catch {
		return undefined;
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
	const segments = url.pathname.split('/');
	if (segments.length < 3 || segments.slice(-2).some((s) => s === '')) return undefined;
	return `${url.origin}${segments.slice(0, -2).join('/')}/`;
}

/** Whether an endpoint's URL lies under a webhook base (same origin, path below it). */
export function isUnder(endpointUrl: unknown, base: string): boolean {
	return typeof endpointUrl === 'string' && endpointUrl.startsWith(base);
}

export interface RecoveryOptions {
	/** Deliveries created before this (ms since the epoch) are left alone. */
	since: number;
	/** Re-enable only an endpoint the service disabled after failed deliveries (see disabledByFailures). */
	onlyDisabledByFailures?: boolean;
	maxReplays?: number;
	pendingOverdueMs?: number;
	now?: number;
}

export interface RecoveryResult {
	endpointId: string;
	url: string | null;
	/** The endpoint's status before recovery. */
	statusBefore: string | null;
	/** When it was disabled, if it was. */
	disabledAt: string | null;
	consecutiveFailures: number | null;
	/** Whether the service disabled it after failed deliveries; null when it was not disabled. */
	disabledByFailures: boolean | null;
	reEnabled: boolean;
	/** Why it was left disabled and nothing replayed, if it was. */
	leftDisabled: string | null;
	since: string;
	/** Events found with no successful delivery since `since`. */
	eventsMissed: number;
	/** Deliveries replayed now (the replayed ones, not the new records the service created). */
	replayedDeliveryIds: string[];
	replayed: number;
	/** Replays the service refused (each with its message); the next recovery tries them again. */
	replayErrors: Array<{ deliveryId: string; error: string }>;
	/** True when the bound (replays or pages) was reached: run again to replay the rest. */
	more: boolean;
	/** Set when another recovery of the endpoint held its lease (this one replayed nothing), or took it over (this one stopped). */
	busy: string | null;
}

/** How long a lease is good for: past it, a marker left by a recovery that died is ignored. */
const LEASE_MS = 10 * 60_000;
const LEASE_SETTLE = { ms: 2_000 };
/** For tests: how long a recovery waits before reading its marker back. */
export function setLeaseSettleMs(ms: number): void {
	LEASE_SETTLE.ms = ms;
}
const MARKER = / \[recovering ([0-9a-f]+) until ([^\]\s]+)\]$/;
const MAX_DESCRIPTION = 500;

function parseMarker(description: unknown): { base: string; token?: string; until?: number } {
	const text = typeof description === 'string' ? description : '';
	const m = MARKER.exec(text);
	return m ? { base: text.slice(0, m.index), token: m[1], until: Date.parse(m[2]) } : { base: text };
}

/** `PATCH /webhooks/endpoints/{id}`: setting values is the same request however often it is sent. */
export async function patchEndpoint(ctx: ApiContext, endpointId: string, body: IDataObject): Promise<void> {
	await apiRequest(ctx, { method: 'PATCH', path: `/webhooks/endpoints/${encodeURIComponent(endpointId)}`, body, idempotent: true });
}

/** Takes the endpoint's recovery lease (see above): whether it is still this one's, a function that gives it back; or until when another recovery holds it. */
async function takeLease(
	ctx: ApiContext,
	endpointId: string,
): Promise<{ stillOurs: () => Promise<boolean>; release: () => Promise<void> } | { heldUntil: string }> {
	const held = (marker: { until?: number }) => ({ heldUntil: new Date(marker.until ?? 0).toISOString() });
	const before = parseMarker((await getEndpoint(ctx, endpointId)).description);
	if (before.token && (before.until ?? 0) > Date.now()) return held(before);
	const token = randomBytes(8).toString('hex');
	const marker = ` [recovering ${token} until ${new Date(Date.now() + LEASE_MS).toISOString()}]`;
	await patchEndpoint(ctx, endpointId, { description: before.base.slice(0, MAX_DESCRIPTION - marker.length) + marker });
	await sleep(LEASE_SETTLE.ms);
	const after = parseMarker((await getEndpoint(ctx, endpointId)).description);
	if (after.token !== token) return held(after);
	return {
		stillOurs: async () => parseMarker((await getEndpoint(ctx, endpointId)).description).token === token,
		release: async () => {
			const now = parseMarker((await getEndpoint(ctx, endpointId)).description);
			if (now.token === token) await patchEndpoint(ctx, endpointId, { description: now.base });
		},
	};
}

interface DeliveryRow {
	id: string;
	eventId: string;
	status: string;
	createdAt: number;
}

function row(value: IDataObject): DeliveryRow | undefined {
	const createdAt = Date.parse(String(value.createdAt ?? ''));
	if (typeof value.id !== 'string' || typeof value.eventId !== 'string' || typeof value.status !== 'string' || !Number.isFinite(createdAt)) {
		return undefined;
	}
	return { id: value.id, eventId: value.eventId, status: value.status, createdAt };
}

/** The endpoint's deliveries created at or after `since`, newest first, and whether the page bound cut the list. */
async function deliveriesSince(ctx: ApiContext, endpointId: string, since: number): Promise<{ rows: DeliveryRow[]; cut: boolean }> {
	const rows: DeliveryRow[] = [];
	let pages = 0;
	for await (const { records, more } of listPages(ctx, { path: '/webhooks/deliveries', listKey: 'deliveries', qs: { endpointId }, pageSize: PAGE_SIZE })) {
		let older = false;
		for (const value of records) {
			const r = row(value);
			if (!r) continue;
			if (r.createdAt < since) older = true;
			else rows.push(r);
		}
		// The early stop: newest first, so a delivery older than `since` ends what is wanted.
		if (older || !more) return { rows, cut: false };
		if (++pages === MAX_PAGES) return { rows, cut: true };
	}
	return { rows, cut: false };
}

/** The deliveries to replay, one per event, oldest event first: events with none `DELIVERED` and none still on its way. */
function toReplay(rows: DeliveryRow[], now: number, pendingOverdueMs: number): { events: number; deliveries: DeliveryRow[] } {
	const byEvent = new Map<string, DeliveryRow[]>();
	for (const r of rows) {
		const list = byEvent.get(r.eventId) ?? [];
		list.push(r);
		byEvent.set(r.eventId, list);
	}
	const picked: Array<{ first: number; delivery: DeliveryRow }> = [];
	for (const list of byEvent.values()) {
		if (list.some((d) => d.status === 'DELIVERED')) continue;
		const overdue = (d: DeliveryRow) => d.status === 'PENDING' && now - d.createdAt > pendingOverdueMs;
		if (list.some((d) => ON_ITS_WAY.has(d.status) && !overdue(d))) continue;
		const candidates = list.filter((d) => DEAD.has(d.status) || overdue(d));
		if (candidates.length === 0) continue;
		// The newest of its dead deliveries (any carries the same signed event).
		const delivery = candidates.reduce((a, b) => (b.createdAt > a.createdAt ? b : a));
		picked.push({ first: Math.min(...list.map((d) => d.createdAt)), delivery });
	}
	picked.sort((a, b) => a.first - b.first);
	return { events: picked.length, deliveries: picked.map((p) => p.delivery) };
}

function message(error: unknown): string {
	const e = error as { message?: string; description?: string };
	return String(e?.description || e?.message || error).slice(0, 300);
}

/** Re-enables the endpoint when disabled, then replays what never reached the receiver (see above). */
export async function recoverEndpoint(ctx: ApiContext, endpoint: IDataObject, options: RecoveryOptions): Promise<RecoveryResult> {
	const endpointId = String(endpoint.id);
	const now = options.now ?? Date.now();
	const maxReplays = Math.max(0, Math.floor(options.maxReplays ?? DEFAULT_MAX_REPLAYS));
	const result: RecoveryResult = {
		endpointId,
		url: typeof endpoint.url === 'string' ? endpoint.url : null,
		statusBefore: typeof endpoint.status === 'string' ? endpoint.status : null,
		disabledAt: typeof endpoint.disabledAt === 'string' ? endpoint.disabledAt : null,
		consecutiveFailures: typeof endpoint.consecutiveFailures === 'number' ? endpoint.consecutiveFailures : null,
		disabledByFailures: endpoint.status === 'DISABLED' ? disabledByFailures(endpoint) : null,
		reEnabled: false,
		leftDisabled: null,
		since: new Date(options.since).toISOString(),
		eventsMissed: 0,
		replayedDeliveryIds: [],
		replayed: 0,
		replayErrors: [],
		more: false,
		busy: null,
	};
	if (endpoint.status === 'DISABLED' && options.onlyDisabledByFailures && !disabledByFailures(endpoint)) {
		result.leftDisabled = `disabled through the API, not by failed deliveries (consecutiveFailures ${result.consecutiveFailures ?? 'unknown'}, the service disables at ${AUTO_DISABLE_AFTER}): left disabled`;
		return result;
	}
	// Replays to a disabled endpoint would only be SKIPPED again: enable first.
	if (endpoint.status === 'DISABLED') {
		await patchEndpoint(ctx, endpointId, { status: 'ENABLED' });
		result.reEnabled = true;
	}
	const pendingOverdueMs = options.pendingOverdueMs ?? DEFAULT_PENDING_OVERDUE_MS;
	let { rows, cut } = await deliveriesSince(ctx, endpointId, options.since);
	let { events, deliveries } = toReplay(rows, now, pendingOverdueMs);
	result.eventsMissed = events;
	if (deliveries.length === 0 || maxReplays === 0) {
		result.more = cut || deliveries.length > maxReplays;
		return result;
	}
	const lease = await takeLease(ctx, endpointId);
	if ('heldUntil' in lease) {
		result.busy = `another recovery of this endpoint is replaying its events (lease until ${lease.heldUntil}): nothing replayed by this one`;
		return result;
	}
	try {
		// Read again under the lease: what a recovery before this one replayed is now on its way.
		({ rows, cut } = await deliveriesSince(ctx, endpointId, options.since));
		({ events, deliveries } = toReplay(rows, Date.now(), pendingOverdueMs));
		result.eventsMissed = events;
		for (const delivery of deliveries.slice(0, maxReplays)) {
			if (!(await lease.stillOurs())) {
				result.busy = `another recovery of this endpoint took its lease over (its marker came late): it replays the rest, this one stopped after ${result.replayedDeliveryIds.length}`;
				break;
			}
			try {
				// Each call creates a new delivery record: never repeated by the transport.
				await apiRequest(ctx, { method: 'POST', path: `/webhooks/deliveries/${encodeURIComponent(delivery.id)}/replay` });
				result.replayedDeliveryIds.push(delivery.id);
			} catch (error) {
				result.replayErrors.push({ deliveryId: delivery.id, error: message(error) });
			}
		}
	} finally {
		// A marker left behind expires with its lease.
		await lease.release().catch(() => undefined);
	}
	result.replayed = result.replayedDeliveryIds.length;
	result.more = cut || deliveries.length > maxReplays;
	return result;
}

/** `GET /webhooks/endpoints/{id}`. */
export async function getEndpoint(ctx: ApiContext, endpointId: string): Promise<IDataObject> {
	return await apiRequest(ctx, { method: 'GET', path: `/webhooks/endpoints/${encodeURIComponent(endpointId)}` });
}

/** The account's live endpoints (`GET /webhooks/endpoints`, not paginated by the API). */
export async function liveEndpoints(ctx: ApiContext): Promise<IDataObject[]> {
	const body = await apiRequest(ctx, { method: 'GET', path: '/webhooks/endpoints' });
	const endpoints = Array.isArray(body.endpoints) ? (body.endpoints as IDataObject[]) : [];
	return endpoints.filter((e) => !e.deletedAt);
}
