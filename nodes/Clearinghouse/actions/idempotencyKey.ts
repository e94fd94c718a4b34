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
import { nodeOfRun, readOncePerRun } from './readOnce';

/**
 * Never pay twice: the key of every keyed write (keyedSend.ts sends it). A Business Key, or a Derived key
 * hashed from the execution's lineage (minted once, kept in n8n's custom data so a retry sends the same
 * keys), the node's name, run, item and request. Fails closed before sending: a Derived key with no
 * lineage, or one that would be new in a run that can start again, is refused.
 */

/** n8n's custom data of this execution: the context's `customData` (2.x), else `$execution.customData`, the same store (1.x). */
function executionCustomData(ctx: IExecuteFunctions): IWorkflowExecutionCustomData | undefined {
	return (ctx.customData as IWorkflowExecutionCustomData | undefined) ?? ctx.getWorkflowDataProxy(0).$execution?.customData;
}

/** The lineage of this execution, read from its custom data (a retry carries it) or minted there; none when neither works. */
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
	mode: KeyMode;
}

/** 'custom' is a Business Key. */
export type KeyMode = 'custom' | 'derived';

/** Idempotency Key of this item: the saved choice, else the default (Business Key). */
export function keyMode(ctx: IExecuteFunctions, itemIndex: number): KeyMode {
	return ctx.getNodeParameter('idempotencyKeyMode', itemIndex, 'custom') === 'derived' ? 'derived' : 'custom';
}

/** Why a Derived key is refused in a run ("…refused in a run <started>"), and the error's description. */
interface DerivedRefusal {
	started: string;
	/** Allow Derived Keys in Editor and Sub-Workflow Runs lifts it: only for runs a person repeats by hand, never one that comes again by itself. */
	exemptible: boolean;
	why: string;
}

const REPEATED_BY_HAND_WHY =
	'Why: every new run gets new Derived keys, so running this again after a failure (the natural next step here) would pay again for the items that already succeeded. ' +
	'What to do: set Idempotency Key → Business Key and map the field that names each payment (e.g. {{ $json.invoiceId }}): a run with the same keys is answered with the orders already made. ' +
	"To accept new keys per run anyway, turn on Allow Derived Keys in Editor and Sub-Workflow Runs. With a credential whose Environment is Local Sandbox (no real money), Derived keys are allowed once the sandbox's answer proves it.";

const NO_OPTION_LIFTS =
	"No option allows Derived keys here (Allow Derived Keys in Editor and Sub-Workflow Runs does not); with a credential whose Environment is Local Sandbox (no real money) they are allowed once the sandbox's answer proves it.";

const REDELIVERED_WHY =
	'Why: the same event or call can arrive again, and each arrival is a new execution with new Derived keys, so it would pay again: ' +
	'the Clearinghouse Trigger delivers an event again when its run fails under Acknowledge → When the Workflow Has Finished, after an n8n restart, or with two webhook processes; ' +
	"a Webhook node's caller retries its request the same way; a message-queue or polling trigger hands over a message again that was not acknowledged. " +
	'What to do: set Idempotency Key → Business Key and map what is the same on every delivery: {{ $json.orderStateKey }} (or {{ $json.eventId }}) from the Clearinghouse Trigger, ' +
	"the caller's own reference for a Webhook node (e.g. {{ $json.body.invoiceId }}), the message's own id for a queue trigger. " +
	NO_OPTION_LIFTS;

function byHand(started: string): DerivedRefusal {
	return { started, exemptible: true, why: REPEATED_BY_HAND_WHY };
}

/**
 * Every execution mode of n8n 2.40.7 (WorkflowExecuteModeList) and its refusal of Derived keys: none only
 * where n8n repeats the run with the same lineage (retry) or the start cannot come again (`trigger`,
 * checked in derivedRefusal). A mode not listed is refused.
 */
const DERIVED_KEY_MODES: Record<string, DerivedRefusal | undefined> = {
	trigger: undefined,
	retry: undefined,
	webhook: {
		started: "started by a webhook call (a Clearinghouse Trigger event, a Webhook node's call)",
		exemptible: false,
		why: REDELIVERED_WHY,
	},
	manual: byHand('started in the editor'),
	integrated: byHand('started as a sub-workflow (Execute Workflow)'),
	cli: byHand('started from the command line (n8n execute)'),
	chat: byHand('started by a chat message'),
	evaluation: byHand('started by an evaluation'),
	agent: byHand("started by n8n's agent"),
	error: byHand('started as an error workflow (n8n starts one for every failed execution, each failed retry included)'),
	internal: byHand('started internally by n8n'),
};

/**
 * The triggers whose start cannot come again: n8n never catches up or repeats a schedule's firing. Any
 * other trigger may hand over the same event again (a queue redelivers, a poller re-reads, ours replays).
 */
export const SCHEDULE_TRIGGER_TYPES: readonly string[] = ['n8n-nodes-base.scheduleTrigger', 'n8n-nodes-base.cron', 'n8n-nodes-base.interval'];

/** The starts a sub-workflow's Derived keys may follow when allowed; a sub-workflow of any other run starts again with its redelivery. */
const STARTED_BY_HAND_OR_ONCE: readonly string[] = ['n8n-nodes-base.manualTrigger', ...SCHEDULE_TRIGGER_TYPES];

/** The node that started this execution (n8n 2.x: `getExecutionContext().triggerNode`); undefined where n8n does not say (1.x). */
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
	// A tool call is a new run of the node, made again at the model's will: no option lifts it.
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
		// Repeated by hand only when the calling run was: n8n gives the child the context of the run at the top of the chain.
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
 * Refuses, before anything is sent, a Derived key in a run that can start again (new keys, paid again),
 * unless the credential is the Local Sandbox (no real money, proved by the server, not by a loopback URL)
 * or, for runs repeated by hand only, Allow Derived Keys in Editor and Sub-Workflow Runs is on.
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
	if (await isSandboxCredential(ctx, itemIndex)) return;
	throw operationError(ctx, `Nothing was sent for this item: Derived idempotency keys are refused in a run ${refusal.started}`, itemIndex, refusal.why);
}

/** The key of one keyed write to `request` (the endpoint and its target, never the body), or the item's error before anything is sent. */
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
	if (mode === 'custom') return { key: validBusinessKey(ctx, itemIndex, businessKey), lineage, newKey: false, mode };
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
		// The name, as n8n's "Retry with currently saved workflow" finds the node: a pasted copy sends the same keys.
		nodeId: `name:${node.name}`,
		runIndex: runIndexOf(ctx, itemIndex),
		itemIndex,
		request,
	});
	return { key, lineage, newKey: minted || lineage.executionId === String(ctx.getExecutionId() ?? ''), mode };
}

/** The item's Business Key, checked: `businessKey` (an input item's field) if given, else the Business Key parameter. */
export function validBusinessKey(ctx: IExecuteFunctions, itemIndex: number, businessKey?: { value: unknown; label: string }): string {
	try {
		const { value, label } = businessKey ?? { value: itemParameter(ctx, 'idempotencyKey', itemIndex, ''), label: 'Business Key' };
		return validateIdempotencyKey(value, label);
	} catch (error) {
		throw itemError(ctx, error, itemIndex);
	}
}

const runIndexOnce = readOncePerRun<number, 'runIndex'>();

/** Which run of this node this is (a loop runs a node several times), read once per run: n8n builds a whole data proxy to answer it. */
function runIndexOf(ctx: IExecuteFunctions, itemIndex: number): number {
	return runIndexOnce(ctx, 'runIndex', () => {
		const value = Number(ctx.getWorkflowDataProxy(itemIndex).$runIndex);
		return Number.isInteger(value) && value >= 0 ? value : 0;
	});
}

/** The request first sent with this key for this item and execution (Retry On Fail resolves `$now` anew), or `request` itself. */
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

/** A keyed write's row as a person knows it in an error: its Business Key; none with Derived keys. */
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
