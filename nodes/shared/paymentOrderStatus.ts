/**
 * Every payment-order status the specification lists. The service adds statuses over time:
 * clients treat unknown ones as informational, so this list is for dropdowns and filters only.
 */
export const PAYMENT_ORDER_STATUSES = [
	'AWAITING_FUNDS',
	'FUNDED',
	'LOCKED',
	'PENDING_NET_SETTLEMENT',
	'READY_TO_DISTRIBUTE',
	'DISTRIBUTION_PENDING',
	'DISTRIBUTION_SUBMITTED',
	'DISTRIBUTED',
	'DISTRIBUTION_FAILED',
	'CANCELED',
	'EXPIRED',
	'REMEDIATING_EXPIRED',
	'REMEDIATING_OVERFUNDED',
	'REFUNDED',
] as const;

/** Dropdown options, e.g. `DISTRIBUTION_FAILED` shown as "Distribution Failed". */
export function paymentOrderStatusOptions(): Array<{ name: string; value: string }> {
	return [...PAYMENT_ORDER_STATUSES].sort().map((value) => ({
		name: value
			.toLowerCase()
			.split('_')
			.map((word) => word.charAt(0).toUpperCase() + word.slice(1))
			.join(' '),
		value,
	}));
}
