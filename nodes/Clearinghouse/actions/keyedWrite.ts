import type { IDataObject, IExecuteFunctions, IHttpRequestMethods, IWorkflowExecutionCustomData } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { firstTry, type FirstTry } from '../../shared/firstTries';
import { apiRequest, isSandboxCredential, type Api, type LimitsRead, type WrittenRecord } from '../../shared/transport';
import {
	deriveIdempotencyKey,
	formatLineage,
	LINEAGE_CUSTOM_DATA_KEY,
	type Lineage,
	mintLineage,
	parseLineage,
	validateIdempotencyKey,
} from '../../shared/idempotency';
import { itemError, itemParameter, operationError, switchParameter } from './parameters';
import { isToolRun } from './toolDescriptions';
import { nodeOfRun } from './readOnce';

/**
 * Never pay twice: the idempotency protocol of every keyed write (create a payment order, a receive
 * ruleset or a reward rule, set return details).
 * - Each item's write carries a key: the user's Business Key, or a Derived key hashed from the
 *   execution's lineage (minted once per execution, kept in n8n's custom data so a retry sends the
 *   same keys), the node's name, run, item and request.
 * - Fail closed before sending: a Derived key with no lineage, or one that would be new in a run
 *   that can start again (editor, sub-workflow, a webhook's or trigger's redelivered event, a tool
 *   call), is refused.
 * - A retry of the same key sends the first try's request (sameRequestAsFirstTry), so the service
 *   answers with what was already made.
 * - A 409 "key used with another request" is said as such: nothing new was made (keyedWriteError).
 * An operation sends with `sendKeyed()`, which does all of it: the one door of every keyed write.
 * One that needs its key before sending (Create: the expiry's anchor, a dry run's lookup) takes it
 * with `keyedWrite()` and hands it in.
 */

/**
 * n8n's custom data of this execution: the context's own `customData` where n8n has it (2.x), else
 * `$execution.customData` of the expression data, the same store (the execution's metadata, which a
 * retry carries) in n8n 1.x, whose execution contexts have no `customData`.
 */
function executionCustomData(ctx: IExecuteFunctions): IWorkflowExecutionCustomData | undefined {
	return (ctx.customData as IWorkflowExecutionCustomData | undefined) ?? ctx.getWorkflowDataProxy(0).$execution?.customData;
}

/**
 * The lineage of this execution, read from n8n's execution custom data (a retry carries it), or
 * minted and stored there by the first keyed write of a new execution. Undefined when it can be
 * neither read nor stored (callers that need it fail closed).
 */
export function executionLineage(ctx: IExecuteFunctions): { lineage?: Lineage; minted: boolean; problem?: string } {
	let customData: IWorkflowExecutionCustomData | undefined;
	try {
		customData = executionCustomData(ctx);
	} catch (error) {
		return { minted: false, problem: `n8n gave no execution custom data (${(error as Error).message})` };
	}
	if (!customData) return { minted: false, problem: 'n8n gave no execution custom data' };
	const found = parseLineage(customData.get(LINEAGE_CUSTOM_DATA_KEY));
	if (found) return { lineage: found, minted: false };
	if (ctx.getMode() === 'retry') {
		return {
			minted: false,
			problem:
				'this is a retry of an execution that holds no key lineage: it crashed or was stopped before n8n saved its custom data (or it ran an older version of this node, or its custom data was full), so which orders it made is unknown',
		};
	}
	// Read, mint and store with no await in between: items running concurrently share one lineage.
	const lineage = mintLineage(String(ctx.getExecutionId() ?? ''), Date.now());
	try {
		customData.set(LINEAGE_CUSTOM_DATA_KEY, formatLineage(lineage));
	} catch {
		// checked just below
	}
	const stored = parseLineage(customData.get(LINEAGE_CUSTOM_DATA_KEY));
	if (stored?.nonce !== lineage.nonce) {
		return {
			minted: false,
			problem: "n8n did not keep the key lineage in the execution's custom data (it holds at most 10 entries; this workflow may already use them all)",
		};
	}
	return { lineage, minted: true };
}

export interface KeyedWrite {
	key: string;
	lineage?: Lineage;
	/** True when no earlier request can have carried this key (a new lineage, a Derived key). */
	newKey: boolean;
	/** 'custom' (a Business Key) or 'derived'. */
	mode: KeyMode;
}

export type KeyMode = 'custom' | 'derived';

/** Idempotency Key of this item: the saved choice, else the default of the node's version (2: Business Key). */
export function keyMode(ctx: IExecuteFunctions, itemIndex: number): KeyMode {
	const fallback = nodeOfRun(ctx).typeVersion >= 2 ? 'custom' : 'derived';
	return ctx.getNodeParameter('idempotencyKeyMode', itemIndex, fallback) === 'derived' ? 'derived' : 'custom';
}

/** Why a Derived key is refused in a run, and whether Allow Derived Keys in Editor and Sub-Workflow Runs lifts it. */
interface DerivedRefusal {
	/** How the run was started: "Derived idempotency keys are refused in a run <started>". */
	started: string;
	/**
	 * True only for runs a person repeats by hand, where the option's words say what it allows. A run
	 * that can come again on its own (a redelivered event, a retried call, a model's call) is never
	 * lifted by it: money first.
	 */
	exemptible: boolean;
	/** The error's description: why, and the Business Key to use. */
	why: string;
}

const REPEATED_BY_HAND_WHY =
	'Why: every new run gets new Derived keys, so running this again after a failure (the natural next step here) would pay again for the items that already succeeded. ' +
	'What to do: set Idempotency Key → Business Key and map the field that names each payment (e.g. {{ $json.invoiceId }}): a run with the same keys is answered with the orders already made. ' +
	"To accept new keys per run anyway, turn on Allow Derived Keys in Editor and Sub-Workflow Runs. With a credential whose Environment is Local Sandbox (no real money), Derived keys are allowed once the sandbox's answer proves it.";

const NO_OPTION_LIFTS =
	"No option allows Derived keys here (Allow Derived Keys in Editor and Sub-Workflow Runs does not); with a credential whose Environment is Local Sandbox (no real money) they are allowed once the sandbox's answer proves it.";

/** A run that can start again for the same event: each start is a new execution with new Derived keys. */
const REDELIVERED_WHY =
	'Why: the same event or call can arrive again, and each arrival is a new execution with new Derived keys, so it would pay again: ' +
	'the Clearinghouse Trigger delivers an event again when its run fails under Acknowledge → When the Workflow Has Finished, after an n8n restart, or with two webhook processes; ' +
	"a Webhook node's caller retries its request the same way; a message-queue or polling trigger hands over a message again that was not acknowledged. " +
	'What to do: set Idempotency Key → Business Key and map what is the same on every delivery: {{ $json.orderStateKey }} (or {{ $json.eventId }}) from the Clearinghouse Trigger, ' +
	"the caller's own reference for a Webhook node (e.g. {{ $json.body.invoiceId }}), the message's own id for a queue trigger. " +
	NO_OPTION_LIFTS;

/**
 * Every execution mode of n8n 2.40.7 (n8n-workflow's WorkflowExecuteModeList), and whether a Derived
 * key is safe in it: only where n8n itself repeats the run with the same lineage (Retry), or, in
 * `trigger` mode, a start that cannot come again (checked in derivedRefusal). The others are started
 * again by a person, a model, a redelivery or n8n at will, each time a new execution with new keys.
 * A mode not listed here is refused.
 */
const DERIVED_KEY_MODES: Record<string, DerivedRefusal | undefined> = {
	trigger: undefined,
	retry: undefined,
	webhook: {
		started: "started by a webhook call (a Clearinghouse Trigger event, a Webhook node's call)",
		exemptible: false,
		why: REDELIVERED_WHY,
	},
	manual: { started: 'started in the editor', exemptible: true, why: REPEATED_BY_HAND_WHY },
	integrated: { started: 'started as a sub-workflow (Execute Workflow)', exemptible: true, why: REPEATED_BY_HAND_WHY },
	cli: { started: 'started from the command line (n8n execute)', exemptible: true, why: REPEATED_BY_HAND_WHY },
	chat: { started: 'started by a chat message', exemptible: true, why: REPEATED_BY_HAND_WHY },
	evaluation: { started: 'started by an evaluation', exemptible: true, why: REPEATED_BY_HAND_WHY },
	agent: { started: "started by n8n's agent", exemptible: true, why: REPEATED_BY_HAND_WHY },
	error: {
		started: 'started as an error workflow (n8n starts one for every failed execution, each failed retry included)',
		exemptible: true,
		why: REPEATED_BY_HAND_WHY,
	},
	internal: { started: 'started internally by n8n', exemptible: true, why: REPEATED_BY_HAND_WHY },
};

/**
 * The triggers whose start cannot come again: a schedule fires once per time and n8n does not catch
 * up or repeat a firing (n8n-nodes-base's Schedule Trigger, and the older Cron and Interval nodes).
 * Every other trigger in `trigger` mode may hand over the same event again (RabbitMQ, Kafka, SQS,
 * MQTT redeliver what was not acknowledged; a polling trigger re-reads after a restart; this
 * package's trigger replays missed events), so it is refused: fail closed.
 */
export const SCHEDULE_TRIGGER_TYPES: readonly string[] = ['n8n-nodes-base.scheduleTrigger', 'n8n-nodes-base.cron', 'n8n-nodes-base.interval'];

/**
 * The node that started this execution, as n8n 2.x records it in the execution's context
 * (`getExecutionContext().triggerNode`, set when the execution starts, n8n-core
 * establishExecutionContext); undefined where n8n does not say (n8n 1.x has no execution context).
 */
function startingTrigger(ctx: IExecuteFunctions): { name: string; type: string } | undefined {
	try {
		const context = (ctx as { getExecutionContext?: () => unknown }).getExecutionContext?.() as
			| { triggerNode?: { name?: unknown; type?: unknown } }
			| undefined;
		const trigger = context?.triggerNode;
		if (trigger && typeof trigger.type === 'string' && trigger.type !== '') return { name: String(trigger.name ?? ''), type: trigger.type };
	} catch {
		// n8n gave no context: unknown, refused below
	}
	return undefined;
}

/** Why a Derived key would be new on every repeat of this run, or undefined when it is safe here. */
function derivedRefusal(ctx: IExecuteFunctions): DerivedRefusal | undefined {
	// A tool call is a new run of the node inside the agent's execution, whatever started that: the
	// model calls again at will, so no option lifts it.
	if (isToolRun(ctx)) {
		return {
			started: "made as an AI agent's tool call (every call is a new run of the node)",
			exemptible: false,
			why:
				"Why: each tool call is a new run with new Derived keys, so a call the model repeats pays again. What to do: set Idempotency Key → Business Key to the request's own reference, e.g. {{ $fromAI('invoiceNumber', 'The invoice number exactly as written in the request', 'string') }}: a repeated call returns the first order. " +
				NO_OPTION_LIFTS,
		};
	}
	const mode = String(ctx.getMode());
	if (mode === 'trigger') {
		const trigger = startingTrigger(ctx);
		if (trigger && SCHEDULE_TRIGGER_TYPES.includes(trigger.type)) return undefined;
		return {
			started: trigger
				? `started by the trigger "${trigger.name}" (${trigger.type}), which can hand over the same event again (only a Schedule Trigger cannot)`
				: 'started by a trigger n8n did not name (n8n gives the starting trigger only from version 2), so it may be one that hands over the same event again',
			exemptible: false,
			why: REDELIVERED_WHY,
		};
	}
	if (!Object.prototype.hasOwnProperty.call(DERIVED_KEY_MODES, mode)) {
		return {
			started: `of a kind this node does not know (n8n execution mode "${mode}")`,
			exemptible: false,
			why:
				'Why: this node cannot tell whether such a run can start again, and each new run gets new Derived keys, so a repeat would pay again. What to do: set Idempotency Key → Business Key and map the field that names each payment (e.g. {{ $json.invoiceId }}). ' +
				NO_OPTION_LIFTS,
		};
	}
	return DERIVED_KEY_MODES[mode];
}

/**
 * Derived keys change in every new execution: a run from the editor, or a sub-workflow (a new child
 * execution each time its parent runs or is retried), is run again by the person after a failure and
 * pays again; a webhook's or a trigger's event is delivered again and pays again. Refused there,
 * before anything is sent, unless the credential's Environment is Local Sandbox (no real money; the
 * transport sends no write before the server proved it; a loopback URL alone counts for nothing), or,
 * for runs a person repeats by hand only, the user turned on Allow Derived Keys in Editor and
 * Sub-Workflow Runs.
 */
export async function refuseDerivedInNewRuns(ctx: IExecuteFunctions, itemIndex: number): Promise<void> {
	const refusal = derivedRefusal(ctx);
	if (!refusal) return;
	if (
		refusal.exemptible &&
		switchParameter(ctx, 'allowDerivedInNewRuns', itemIndex, false, 'Allow Derived Keys in Editor and Sub-Workflow Runs', 'exemption')
	) {
		return;
	}
	// The transport's read of the credential; it sends no write before the sandbox proved itself.
	if (await isSandboxCredential(ctx, itemIndex)) return;
	throw operationError(ctx, `Nothing was sent for this item: Derived idempotency keys are refused in a run ${refusal.started}`, itemIndex, refusal.why);
}

/**
 * The key for one keyed write to `request` (the endpoint and its target, never the body): the
 * user's business key, or one derived from the lineage, node, run and item. Fails closed, before
 * anything is sent, when a Derived key cannot be anchored on the lineage, or would be new in a run a
 * person repeats by hand.
 */
export async function keyedWrite(
	ctx: IExecuteFunctions,
	itemIndex: number,
	request: string,
	/** The business key read elsewhere (an input item's field) instead of the Business Key parameter. */
	businessKey?: { value: unknown; label: string },
): Promise<KeyedWrite> {
	const mode = keyMode(ctx, itemIndex);
	if (mode === 'derived') await refuseDerivedInNewRuns(ctx, itemIndex);
	const { lineage, minted, problem } = executionLineage(ctx);
	if (mode === 'custom') {
		try {
			const key = businessKey
				? validateIdempotencyKey(businessKey.value, businessKey.label)
				: validateIdempotencyKey(itemParameter(ctx, 'idempotencyKey', itemIndex, ''), 'Business Key');
			return { key, lineage, newKey: false, mode };
		} catch (error) {
			throw itemError(ctx, error, itemIndex);
		}
	}
	if (!lineage) {
		throw operationError(
			ctx,
			'Nothing was sent for this item: its Derived idempotency key cannot be made safe for this run',
			itemIndex,
			`Why: ${problem}. Without it a retry could write a second time. What to do: see which orders exist (Payment Order → Find by Keys with the keys of the earlier outputs, or Get Many), then pay only what is missing, with a Business Key (Idempotency Key → Business Key) so that any later run is answered with the orders already made.`,
		);
	}
	const node = nodeOfRun(ctx);
	const key = deriveIdempotencyKey({
		instanceId: ctx.getInstanceId(),
		workflowId: String(ctx.getWorkflow().id ?? ''),
		lineage: lineage.nonce,
		// Version 2: the node's name, which n8n's "Retry with currently saved workflow" finds it by, so
		// a node replaced by a pasted copy (same name, new id) sends the same keys. Version 1 keeps the
		// id: executions already running must get the keys they started with on their retry.
		nodeId: node.typeVersion >= 2 ? `name:${node.name}` : (node.id ?? node.name),
		runIndex: runIndexOf(ctx, itemIndex),
		itemIndex,
		request,
	});
	return { key, lineage, newKey: minted || lineage.executionId === String(ctx.getExecutionId() ?? ''), mode };
}

/**
 * Which run of this node this is (a loop runs a node several times in one execution). The same for
 * every item of one run (one n8n context), so it is read once per context: n8n builds a whole data
 * proxy to answer it.
 */
const runIndexByContext = new WeakMap<IExecuteFunctions, number>();

function runIndexOf(ctx: IExecuteFunctions, itemIndex: number): number {
	let runIndex = runIndexByContext.get(ctx);
	if (runIndex === undefined) {
		const value = Number(ctx.getWorkflowDataProxy(itemIndex).$runIndex);
		runIndex = Number.isInteger(value) && value >= 0 ? value : 0;
		runIndexByContext.set(ctx, runIndex);
	}
	return runIndex;
}

/**
 * The request first sent with this key for this item in this execution (Retry On Fail re-runs the
 * node; `$now` or random expressions then resolve differently), or `request` itself the first time.
 */
export function sameRequestAsFirstTry<T>(ctx: IExecuteFunctions, itemIndex: number, key: string, request: T): FirstTry<T> {
	const id = [
		ctx.getInstanceId(),
		ctx.getWorkflow().id,
		ctx.getExecutionId(),
		nodeOfRun(ctx).id ?? nodeOfRun(ctx).name,
		runIndexOf(ctx, itemIndex),
		itemIndex,
		key,
	].join('|');
	return firstTry(id, request);
}

/**
 * Whether a keyed write's error is the service's "key already used with another request" (409). For
 * orders and rulesets a 409 can only mean that (the spec); return details and reward rules have
 * other 409s (stale revision, full library), so there the answer must name the key.
 */
export function isKeyReused(error: unknown, what: string): boolean {
	return (
		error instanceof NodeApiError &&
		error.httpCode === '409' &&
		(what === 'payment order' || what === 'receive ruleset' || /idempot/i.test([error.message, ...(error.messages ?? [])].join(' ')))
	);
}

/**
 * The error of a keyed write, a 409 said the way it happened: the record exists with other values
 * (the key was first used with another request), and nothing new was made. Any other error is
 * returned as it is: the router makes it the item's node error.
 */
export function keyedWriteError(error: unknown, key: string, what: string, mode: KeyMode): unknown {
	if (isKeyReused(error, what) && error instanceof NodeApiError) {
		error.message =
			what === 'return details'
				? "This item's return details were already sent with this key with other values or another expected revision: check the order's return details before writing again"
				: `This item's ${what} already exists with other values: check it before ${what === 'payment order' ? 'paying' : 'writing'} again`;
		error.description =
			`The idempotency key ${key} was already used for a ${what} with a different request (for example another amount, recipient or expiry, changed before a retry), so nothing new was created. ` +
			`Check the existing ${what} (${EXISTING_RECORD_READ[what as KeyedRecord] ?? 'Get or Get Many'}). To make a new one on purpose, ${mode === 'derived' ? 'run the workflow anew' : 'use a new Business Key'}.`;
	}
	return error;
}

/** What each keyed write makes, in the words of its errors. */
export type KeyedRecord = 'payment order' | 'receive ruleset' | 'return details' | 'reward rule';

/** Where a person sees the record a reused key already made: the operation that reads it (the spec has no read of rulesets). */
const EXISTING_RECORD_READ: Record<KeyedRecord, string> = {
	'payment order': 'Payment Order → Find by Keys with this key',
	'receive ruleset': "the earlier run's output: the service offers no read of rulesets",
	'return details': 'Payment Order → Get, its return details',
	'reward rule': 'Reward Rule → Get Many',
};

/** The lost-answer words of each record (the transport says "this change" for the others). */
export const WRITTEN_RECORDS: Partial<Record<KeyedRecord, WrittenRecord>> = {
	'payment order': { what: 'this payment order', lookUp: 'Payment Order → Find by Keys (or Get Many) shows whether the order exists' },
};

export interface KeyedSend<T> {
	/** The key taken earlier with `keyedWrite()`; without it `sendKeyed` takes it for this request (keyRequest). */
	key?: string;
	record: KeyedRecord;
	api?: Api;
	method: IHttpRequestMethods;
	path: string;
	/** Where the service takes the key: the body's `idempotencyKey`, or the `Idempotency-Key` header. */
	keyIn: 'body' | 'header';
	body: IDataObject;
	headers?: Record<string, string>;
	/** The read of the account's limits that may explain a refusal naming no field, for the request sent (transport: limitsOnRefusal). */
	limitsOnRefusal?: (sent: SentRequest) => LimitsRead;
	/** Runs on the request about to be sent (the first try's), before it is sent. */
	beforeSend?: (sent: SentRequest) => void;
	/** On the service's 409 for a reused key: the answer to give instead, if any (else the keyed 409 error). */
	onKeyReused?: (sent: SentRequest, error: unknown) => Promise<T | undefined>;
}

/** The body and headers a keyed write sent: the first try's for this key, item and execution. */
export interface SentRequest {
	body: IDataObject;
	headers: Record<string, string>;
}

export interface KeyedAnswer<T> {
	/** The idempotency key sent. */
	key: string;
	/** The service's answer (empty when `reused` answers instead). */
	response: IDataObject;
	sent: SentRequest;
	/** True when this was the first try of this key for this item in this execution. */
	firstTry: boolean;
	startedMs: number;
	/** What `onKeyReused` answered the service's 409 with. */
	reused?: T;
}

/**
 * The request a key is derived for: the method, the rewards host when it is that one, and the path
 * with its IDs as the user gave them (the path carries them URI-encoded; a path ID never holds `%`).
 * A Derived key depends on it, so it may never change for an existing operation.
 */
export function keyRequest(send: Pick<KeyedSend<unknown>, 'api' | 'method' | 'path'>): string {
	return `${send.method} ${send.api === 'rewards' ? 'rewards ' : ''}${decodeURIComponent(send.path)}`;
}

/**
 * Sends one keyed write: its key (given, or taken here by `keyedWrite()`) placed where the service
 * takes it, the first try's request for this key (Retry On Fail resolves `$now` anew), marked
 * idempotent (the transport may repeat it, and says "may have made this <record>" when its answer is
 * lost), and its 409 said as a reused key.
 */
export async function sendKeyed<T = never>(ctx: IExecuteFunctions, itemIndex: number, send: KeyedSend<T>): Promise<KeyedAnswer<T>> {
	const key = send.key ?? (await keyedWrite(ctx, itemIndex, keyRequest(send))).key;
	const keyed: SentRequest =
		send.keyIn === 'body'
			? { body: { ...send.body, idempotencyKey: key }, headers: { ...send.headers } }
			: { body: send.body, headers: { ...send.headers, 'Idempotency-Key': key } };
	const { request: sent, first } = sameRequestAsFirstTry(ctx, itemIndex, key, keyed);
	send.beforeSend?.(sent);
	const startedMs = Date.now();
	try {
		const response = await apiRequest.call(ctx, {
			api: send.api,
			method: send.method,
			path: send.path,
			headers: Object.keys(sent.headers).length > 0 ? sent.headers : undefined,
			body: sent.body,
			idempotent: true,
			record: WRITTEN_RECORDS[send.record],
			limitsOnRefusal: send.limitsOnRefusal?.(sent),
			itemIndex,
		});
		return { key, response, sent, firstTry: first, startedMs };
	} catch (error) {
		if (send.onKeyReused && isKeyReused(error, send.record)) {
			const reused = await send.onKeyReused(sent, error);
			if (reused !== undefined) return { key, response: {}, sent, firstTry: first, startedMs, reused };
		}
		throw keyedWriteError(error, key, send.record, keyMode(ctx, itemIndex));
	}
}

/** A keyed write's row as a person knows it in an error (router.ts nameOfRow): its Business Key; none with Derived keys. */
export function businessKeyReference(this: IExecuteFunctions, itemIndex: number): string | undefined {
	try {
		if (keyMode(this, itemIndex) !== 'custom') return undefined;
		const key = itemParameter(this, 'idempotencyKey', itemIndex, '');
		const text = typeof key === 'string' || typeof key === 'number' ? String(key).trim() : '';
		if (text === '') return undefined;
		return text.length > 60 ? `${text.slice(0, 60)}…` : text;
	} catch {
		return undefined;
	}
}
