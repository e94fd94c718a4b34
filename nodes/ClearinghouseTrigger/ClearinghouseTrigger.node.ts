import type {
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	ITriggerFunctions,
	ITriggerResponse,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { ACKNOWLEDGE_WEBHOOK_FIELDS } from './acknowledgement';
import { EVENTS_SUBTITLE } from './eventOptions';
import { properties } from './fields';
import { onActivation } from './activation';
import { onDelivery } from './delivery';
import { checkExists, create, deleteWebhook } from './publish';

/** The Clearinghouse Trigger: publish and unpublish (publish.ts), activation (activation.ts), a delivery (delivery.ts). */
export class ClearinghouseTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Clearinghouse Trigger',
		name: 'clearinghouseTrigger',
		icon: { light: 'file:clearinghouse.svg', dark: 'file:clearinghouse.dark.svg' },
		group: ['trigger'],
		// One version until a release has saved workflows (then a new default needs a new one). 2, not 1: n8n
		// evaluates an expression on every delivery to a version 1 trigger (`options.binaryData`, parseRequestBody).
		version: 2,
		subtitle: EVENTS_SUBTITLE,
		// n8n 2.40.7's nodes panel merges a trigger with the action node of the same name and shows the
		// trigger's description for both (workflows.store, generateMergedNodesAndActions): it says both.
		description: 'Pay, refund and look up stablecoin payment orders, and start workflows on their signed events',
		defaults: { name: 'Clearinghouse Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'clearinghouseApi', required: true }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				...ACKNOWLEDGE_WEBHOOK_FIELDS,
				path: 'webhook',
			},
		],
		properties,
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return await checkExists(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return await create(this);
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return await deleteWebhook(this);
			},
		},
	};

	/** Called on every activation and for a manual run from a test event; why it exists: activation.ts. */
	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		return await onActivation(this);
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await onDelivery(this);
	}
}
