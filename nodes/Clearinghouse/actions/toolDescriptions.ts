import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { nodeOfRun } from './readOnce';

/**
 * Whether this run is an AI agent's tool call: n8n runs a `usableAsTool` node as the type `<name>Tool`
 * (1.x and 2.x) with the model's arguments as its input item, so `$json` too reads what the model wrote.
 */
export function isToolRun(ctx: Pick<IExecuteFunctions, 'getNode'>): boolean {
	return /Tool$/.test(nodeOfRun(ctx).type);
}

/** What an AI agent reads about Create: n8n adds its own Tool Description field only to a node that declares none. */
export const CREATE_PAYMENT_ORDER_TOOL_DESCRIPTION =
	'Creates ONE payment order in the Clearinghouse: the recipient is paid in a dollar stablecoin (for example USDC) once the order is funded. ' +
	'Amounts are US dollars (USD) written as decimal text with a dot, for example "120.50": at most 4 decimals, no currency sign, no thousands separator. ' +
	'The business key (for example the invoice number) must be copied exactly from the request, never invented: calling again with the same key returns the same order instead of paying twice. ' +
	'Spend limits set by the workflow owner (maximum per order and per run, allowed recipients, senders, assets and chains) are always enforced and cannot be changed by you. ' +
	'An error names the field or limit and the rule: correct a malformed value and call again; if a limit refused the payment, do not retry it, report it.';

export function toolDescriptionField(description: string): INodeProperties {
	return {
		displayName: 'Tool Description',
		name: 'toolDescription',
		type: 'string',
		typeOptions: { rows: 4 },
		default: description,
		description: 'What the AI agent reads about this tool: what it does, units and formats, and how to handle its errors',
		displayOptions: { show: { '@tool': [true] } },
	};
}
