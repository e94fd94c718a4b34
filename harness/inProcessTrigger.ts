/**
 * The Clearinghouse Trigger in this process, the way n8n 2.40.7 runs it: webhook() in n8n-core's
 * WebhookContext with what n8n's webhook server does around it (webhook-helpers.ts), and
 * checkExists/create/delete in its HookContext, over static data kept as n8n keeps it. Used by the
 * trigger's node tests (test/nodes/trigger/) and bench/confirmation.ts.
 */
import type { HookContext } from 'n8n-core';
import type { IDataObject, INodeExecutionData, IWebhookResponseData } from 'n8n-workflow';
import { ObservableObject } from 'n8n-workflow';

import { ClearinghouseTrigger } from '../nodes/ClearinghouseTrigger/ClearinghouseTrigger.node';
import { openSecret } from '../nodes/shared/secretBox';
import type { Sandbox } from '../sandbox/server';
import { hookContext, webhookContext, type NodeSetup } from './n8nContexts';

export const trigger = new ClearinghouseTrigger();
export const NODE_NAME = 'Clearinghouse Trigger';
export const STATIC_KEY = `node:${NODE_NAME}`;
/** n8n's node id in n8nContexts' workflows (part of the secret box's scope). */
export const NODE_ID = 'node-under-test';

/** What the trigger's credential needs of a sandbox. */
export type SandboxAccess = Pick<Sandbox, 'apiKey' | 'mainUrl' | 'rewardsUrl'>;

/**
 * A workflow's static data as n8n 2.40.7 keeps it for a trigger: what create()/delete() write is
 * saved; each delivery works on a fresh copy of what was saved, and that copy is saved again, whole,
 * only when the delivery wrote to it and started no run (when it starts one, n8n loses the write).
 * "Wrote" as n8n tells it: the copy is an ObservableObject (as `new Workflow()` makes it), whose
 * `__dataChanged` any write at any depth sets, and n8n saves only then
 * (`WorkflowStaticDataService.saveStaticData`). A write therefore overwrites whatever another call saved
 * since the delivery began.
 */
export class N8nStaticData {
	saved: IDataObject = {};

	/** The workflow-level object a lifecycle call works on (saved as is, like n8n does after it). */
	forHook(): IDataObject {
		return this.saved;
	}

	forDelivery(): IDataObject {
		// n8n keeps it as JSON in the database row.
		return ObservableObject.create(JSON.parse(JSON.stringify(this.saved)) as IDataObject, undefined, { ignoreEmptyOnFirstChild: true });
	}

	afterDelivery(copy: IDataObject, startedRun: boolean): void {
		if (!startedRun && (copy as { __dataChanged?: boolean }).__dataChanged === true) this.saved = JSON.parse(JSON.stringify(copy)) as IDataObject;
	}

	node(): IDataObject {
		return (this.saved[STATIC_KEY] ?? {}) as IDataObject;
	}
}

export interface Outcome {
	status: number;
	body: unknown;
	/** Items of the run n8n would start; undefined when none starts. */
	items?: INodeExecutionData[];
	/** webhook() threw: n8n would have created an error execution. */
	threw?: boolean;
	/** webhook() handed n8n a run, but n8n failed to create it (TriggerUnderTest.failRunStart). */
	runNotStarted?: boolean;
}

export interface TriggerUnderTest {
	parameters: IDataObject;
	workflowId: string;
	staticData: N8nStaticData;
	/** 'webhook' for production, 'manual' for the editor's test webhook. */
	mode?: 'webhook' | 'manual';
	/** The credential's API key; the sandbox's own key when unset. */
	apiKey?: string;
	/** The credential's Base URL; the sandbox's main API when unset. */
	baseUrl?: string;
	/** When it returns true, n8n fails to create the run webhook() asked for (answers 500). */
	failRunStart?: () => boolean;
	/** n8n is still creating the run webhook() asked for (a loaded database or queue): it answers once this resolves. */
	creatingRun?: () => Promise<void>;
}

/** The endpoint secret the trigger keeps sealed in its static data, opened with its credential's key. */
export function secretOf(sb: SandboxAccess, t: TriggerUnderTest): string | undefined {
	return openSecret(t.staticData.node().secretBox, { apiKey: t.apiKey ?? sb.apiKey, workflowId: t.workflowId, nodeId: NODE_ID });
}

export function setupFor(sb: SandboxAccess, t: TriggerUnderTest): NodeSetup {
	return {
		name: NODE_NAME,
		parameters: t.parameters as NodeSetup['parameters'],
		credentials: { apiKey: t.apiKey ?? sb.apiKey, baseUrl: t.baseUrl ?? sb.mainUrl, rewardsUrl: sb.rewardsUrl },
		workflowId: t.workflowId,
		webhookId: `wh-${t.workflowId}`,
	};
}

/** What n8n's webhook server does around webhook() (webhook-helpers.ts), for one request. */
export async function deliver(sb: SandboxAccess, t: TriggerUnderTest, headers: Record<string, string>, rawBody: Buffer): Promise<Outcome> {
	const data = t.staticData.forDelivery();
	const { context, response, answer } = webhookContext(trigger, { ...setupFor(sb, t), staticData: data, mode: t.mode ?? 'webhook' }, { headers, rawBody });
	let result: IWebhookResponseData;
	try {
		result = await trigger.webhook.call(context);
	} catch {
		t.staticData.afterDelivery(data, true);
		return { status: 500, body: undefined, threw: true, items: [] };
	}
	const startedRun = result.workflowData !== undefined;
	t.staticData.afterDelivery(data, startedRun);
	if (result.noWebhookResponse) {
		// The node answered itself; n8n sends nothing more (and starts a run only with workflowData).
		answer(response.statusCode ?? 200);
		return { status: response.statusCode ?? 200, body: response.body, items: result.workflowData?.[0] };
	}
	if (!startedRun) {
		answer(200);
		return { status: 200, body: result.webhookResponse ?? { message: 'Webhook call received' } };
	}
	await t.creatingRun?.();
	if (t.failRunStart?.()) {
		// n8n could not create the execution (database, queue): it answers 500 and nothing runs.
		answer(500);
		return { status: 500, body: { message: 'There was a problem executing the workflow' }, items: [], runNotStarted: true };
	}
	// responseMode onReceived: n8n answers once it created the execution, which runs these items.
	answer(200);
	return { status: 200, body: { message: 'Workflow was started' }, items: result.workflowData![0] };
}

/** n8n's HookContext for the trigger's lifecycle methods, its webhook URLs under `webhookBase` (`<base>/webhook/…`, `<base>/webhook-test/…`). */
export function hook(sb: SandboxAccess, webhookBase: string, t: TriggerUnderTest, mode?: 'internal'): HookContext {
	return hookContext(
		trigger,
		{ ...setupFor(sb, t), staticData: t.staticData.forHook(), mode: t.mode === 'manual' ? 'manual' : (mode ?? 'trigger') },
		{ webhookBaseUrl: `${webhookBase}/webhook`, webhookTestBaseUrl: `${webhookBase}/webhook-test` },
		mode ? 'update' : 'activate',
	);
}
