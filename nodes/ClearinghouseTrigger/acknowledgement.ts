import { sleep } from 'n8n-workflow';
import { setNewest } from '../shared/boundedMemory';

/**
 * The runs in flight, per trigger and process, by event id and order state: a repeat that arrives
 * meanwhile (the service's 10 s timeout) must not be answered 2xx, or the event is lost when the run
 * fails. With "When the Workflow Has Finished" n8n answers only when the run ended (`lastNode`).
 */
export type Acknowledge = 'whenReceived' | 'whenFinished';

/** The response mode n8n uses for the trigger's webhook, from the node's `acknowledge` option. */
const RESPONSE_MODE_EXPRESSION = '={{ $parameter["options"]["acknowledge"] === "whenFinished" ? "lastNode" : "onReceived" }}';

/** The part of n8n's (Express) response object this module reads. */
export interface ResponseLike {
	statusCode: number;
	readonly writableEnded: boolean;
	once(event: 'finish', listener: () => void): unknown;
}

/** How often a run in flight is looked at, for the case where `finish` never comes. */
let pollMs = 500;
/**
 * A run whose answer never comes (its process lost the execution) counts as failed after this, so
 * a retry runs it again. Keep workflows with this acknowledgement far shorter.
 */
const IN_FLIGHT_MAX_MS = 15 * 60_000;
/** Per process: at most this many keys in flight per trigger, two per run (the oldest are forgotten first). */
const MAX_IN_FLIGHT = 5_000;

const inFlight = new Map<string, Map<string, number>>();

function runsOf(trigger: string): Map<string, number> {
	let runs = inFlight.get(trigger);
	if (!runs) {
		runs = new Map();
		setNewest(inFlight, trigger, runs, 100);
	}
	return runs;
}

/** Whether a run of this key (an event id, or an order state's key) is in flight for the trigger in this process. */
export function isInFlight(trigger: string, key: string): boolean {
	return runsOf(trigger).has(key);
}

/**
 * Marks the run's keys in flight (synchronously: no other delivery of them passes in between) and calls
 * `done(succeeded)` once n8n answered (2xx: succeeded), seen by `finish`; when the caller hung up first
 * there is no `finish`, but n8n still ends the response (`writableEnded`), which a light poll sees.
 */
export function trackRun(trigger: string, keys: readonly string[], res: ResponseLike, done: (succeeded: boolean) => void, now = Date.now()): void {
	const runs = runsOf(trigger);
	for (const key of keys) setNewest(runs, key, now, MAX_IN_FLIGHT);
	let settled = false;
	const settle = () => {
		if (settled) return;
		settled = true;
		for (const key of keys) if (runs.get(key) === now) runs.delete(key);
		done(res.writableEnded && res.statusCode >= 200 && res.statusCode < 300);
	};
	res.once('finish', settle);
	void (async () => {
		for (let waited = 0; !settled && !res.writableEnded && waited < IN_FLIGHT_MAX_MS; waited += pollMs) await sleep(pollMs);
		settle();
	})();
}

/** For tests: forget every run in flight, as a restart would. */
export function forgetInFlight(): void {
	inFlight.clear();
}

/** For tests: look at runs in flight this often (the tests of a hung-up caller wait for a few looks). */
export function setInFlightPollMs(ms: number): void {
	pollMs = ms;
}

/** With "When Finished", the answer carries no workflow data (and an empty last node is no error). */
const RESPONSE_DATA_EXPRESSION = '={{ $parameter["options"]["acknowledge"] === "whenFinished" ? "noData" : "firstEntryJson" }}';

function acknowledgeOf(parameters: Record<string, unknown>): unknown {
	const options = parameters.options as Record<string, unknown> | undefined;
	return options?.acknowledge;
}

/**
 * n8n 2.40's native resolvers for the two values above (as its Webhook node's `webhookDescriptionFields`):
 * no expression engine on every delivery. Each gives what its template gives, which stays for the editor
 * and older n8n. Built here, not imported, so the node loads in an n8n without these helpers.
 */
export const ACKNOWLEDGE_WEBHOOK_FIELDS = {
	responseMode: RESPONSE_MODE_EXPRESSION,
	responseData: RESPONSE_DATA_EXPRESSION,
	[Symbol.for('n8n.webhookDescriptionResolvers')]: {
		responseMode: {
			template: RESPONSE_MODE_EXPRESSION,
			resolve: (parameters: Record<string, unknown>) => (acknowledgeOf(parameters) === 'whenFinished' ? 'lastNode' : 'onReceived'),
		},
		responseData: {
			template: RESPONSE_DATA_EXPRESSION,
			resolve: (parameters: Record<string, unknown>) => (acknowledgeOf(parameters) === 'whenFinished' ? 'noData' : 'firstEntryJson'),
		},
	},
};
