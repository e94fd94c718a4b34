import { setNewest } from './boundedMemory';

/**
 * The request first sent for a key within one execution, in process memory: n8n's Retry On Fail runs the
 * node again, where `$now` gives another value, and the key must carry the request it was first used for.
 * Never across executions: a retry with changed values must meet the service's 409.
 */
const firstRequests = new Map<string, unknown>();
const KEPT = 10_000;

export interface FirstTry<T> {
	request: T;
	/** False when an earlier try in this execution already sent this key. */
	first: boolean;
}

/** The request remembered under `id` (execution, node, run, item, key), or `request` from now on. */
export function firstTry<T>(id: string, request: T): FirstTry<T> {
	if (firstRequests.has(id)) return { request: firstRequests.get(id) as T, first: false };
	setNewest(firstRequests, id, request, KEPT);
	return { request, first: true };
}
