import type { IExecuteFunctions, IWorkflowExecutionCustomData } from 'n8n-workflow';

import { firstTry, type FirstTry } from '../../shared/firstTries';
import { isSandboxCredential } from '../../shared/transport';
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
 * This file takes the key (`takeKey()`); keyedSend.ts sends the keyed write, taking the key here
 * itself unless it is handed one (Create needs its key before sending: the expiry's anchor, a dry
 * run's lookup).
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

export interface TakenKey {
	key: string;
	lineage?: Lineage;
	/** True when no earlier request can have carried this key (a new lineage, a Derived key). */
	newKey: boolean;
	/** 'custom' (a Business Key) or 'derived'. */
	mode: KeyMode;
}

export type KeyMode = 'custom' | 'derived';

/** Idempotency Key of this item: the saved choice, else the default (Business Key). */
export function keyMode(ctx: IExecuteFunctions, itemIndex: number): KeyMode {
	return ctx.getNodeParameter('idempotencyKeyMode', itemIndex, 'custom') === 'derived' ? 'derived' : 'custom';
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
 * The starts a sub-workflow's Derived keys may follow when the user allows it: the editor's Execute
 * Workflow button (a person repeats that run) and a schedule (its firing never comes again). A
 * sub-workflow of any other run (a webhook call, a trigger's event, a chat, a form) is started again
 * with that run's redelivery, each time a new child execution with new keys: no option lifts it.
 */
const STARTED_BY_HAND_OR_ONCE: readonly string[] = ['n8n-nodes-base.manualTrigger', ...SCHEDULE_TRIGGER_TYPES];

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
	if (mode === 'integrated') {
		// A sub-workflow's run is repeated by hand only when the run that called it was: n8n gives the
		// child the execution context of the run at the top of the chain, whose start it names.
		const trigger = startingTrigger(ctx);
		if (trigger && STARTED_BY_HAND_OR_ONCE.includes(trigger.type)) return DERIVED_KEY_MODES.integrated;
		return {
			started: trigger
				? `started as a sub-workflow of a run started by "${trigger.name}" (${trigger.type}), which can start again by itself (only a run started in the editor or by a Schedule Trigger cannot)`
				: 'started as a sub-workflow of a run whose start n8n did not name (n8n gives it only from version 2), so it may be one that starts again by itself',
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
export async function takeKey(
	ctx: IExecuteFunctions,
	itemIndex: number,
	request: string,
	/** The business key read elsewhere (an input item's field) instead of the Business Key parameter. */
	businessKey?: { value: unknown; label: string },
): Promise<TakenKey> {
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
		// The node's name, which n8n's "Retry with currently saved workflow" finds it by, so a node
		// replaced by a pasted copy (same name, new id) sends the same keys.
		nodeId: `name:${node.name}`,
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

/** A keyed write's row as a person knows it in an error (router.ts nameOfRow): its Business Key; none with Derived keys. */
export function businessKeyReference(ctx: IExecuteFunctions, itemIndex: number): string | undefined {
	try {
		if (keyMode(ctx, itemIndex) !== 'custom') return undefined;
		const key = itemParameter(ctx, 'idempotencyKey', itemIndex, '');
		const text = typeof key === 'string' || typeof key === 'number' ? String(key).trim() : '';
		if (text === '') return undefined;
		return text.length > 60 ? `${text.slice(0, 60)}…` : text;
	} catch {
		return undefined;
	}
}
