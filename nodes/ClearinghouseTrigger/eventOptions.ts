import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { PAYMENT_ORDER_STATUSES } from '../shared/paymentOrderStatus';

type Status = (typeof PAYMENT_ORDER_STATUSES)[number];

/**
 * The trigger's Events: named for what happened, valued with the status the order then has. n8n's nodes
 * panel lists one trigger entry per option of a property named Event/Events/Trigger On.
 */
const EVENTS: Record<Status, { name: string; description: string }> = {
	AWAITING_FUNDS: { name: 'Order Awaiting Funds', description: 'An order was created, or received a partial deposit, and waits for funds' },
	FUNDED: { name: 'Order Funded', description: 'An order received its full amount' },
	LOCKED: { name: 'Order Locked', description: 'An order was locked for settlement' },
	PENDING_NET_SETTLEMENT: { name: 'Order Pending Net Settlement', description: 'An order waits for the netting window to close' },
	READY_TO_DISTRIBUTE: { name: 'Order Ready to Distribute', description: 'An order was settled and waits for its payout' },
	DISTRIBUTION_PENDING: { name: 'Distribution Pending', description: "An order's payout is being prepared" },
	DISTRIBUTION_SUBMITTED: { name: 'Distribution Submitted', description: "An order's payout was sent to the chain" },
	DISTRIBUTED: { name: 'Order Distributed', description: "An order's payout arrived: the recipient was paid" },
	DISTRIBUTION_FAILED: { name: 'Distribution Failed', description: "An order's payout failed" },
	CANCELED: { name: 'Order Canceled', description: 'An order was canceled' },
	EXPIRED: { name: 'Order Expired', description: 'An order expired before it was funded' },
	REMEDIATING_EXPIRED: { name: 'Expired Order Being Remediated', description: 'Funds that arrived for an expired order are being returned' },
	REMEDIATING_OVERFUNDED: { name: 'Overfunded Order Being Remediated', description: 'The excess of an overfunded order is being returned' },
	REFUNDED: { name: 'Order Refunded', description: "An order's funds were returned to the sender" },
};

/** The Events options, sorted by name as n8n's lint asks for. */
export function eventOptions(): INodePropertyOptions[] {
	return PAYMENT_ORDER_STATUSES.map((value) => ({ ...EVENTS[value], value })).sort((a, b) => a.name.localeCompare(b.name));
}

/** The canvas subtitle (an expression the editor evaluates): the chosen events by name, or every event. */
const NAMES = JSON.stringify(Object.fromEntries(PAYMENT_ORDER_STATUSES.map((status) => [status, EVENTS[status].name])));
const CHOSEN = '$parameter["statuses"]';
export const EVENTS_SUBTITLE =
	`={{ !Array.isArray(${CHOSEN}) ? "Events set by an expression" : ${CHOSEN}.length === 0 ? "Every payment order event" : ` +
	`${CHOSEN}.slice(0, 2).map((s) => (${NAMES})[s] || s).join(", ") + (${CHOSEN}.length > 2 ? " and " + (${CHOSEN}.length - 2) + " more" : "") }}`;

/** Pass Unknown Statuses: off, so the trigger passes only the chosen events unless the user asks for more. */
export const passUnknownStatusesField: INodeProperties = {
	displayName: 'Pass Unknown Statuses',
	name: 'passUnknownStatuses',
	type: 'boolean',
	validateType: 'boolean',
	default: false,
	description:
		'Whether to also start the workflow for order statuses this node does not know yet (the service adds statuses over time; Events cannot name them). Off: only the chosen events.',
};
