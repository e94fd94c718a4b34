import { FieldError } from './fieldError';

/**
 * Boolean options that guard money or events, read fail-closed (the list: docs/guard-rails.md).
 * n8n hands a boolean written as an expression over as whatever the expression gives: `$vars` and
 * `$env` are always text, `$json` anything. `=== true` made the text "true" off and paid a Dry Run;
 * `as boolean` made the text "false" on.
 *
 * - A guard (on is the safe side: Dry Run, Drop Duplicate Deliveries, ...) is off only for a real
 *   `false` (or when unset, its default). `true`, `1`, "true" and "1" turn it on.
 * - An exemption (on weakens a guard: Allow Derived Keys, Emit Test Pings, ...) is on only for a real
 *   `true`, "true", `1` or "1", off for `false`, "false", `0` or "0".
 * - Anything else (other text such as "yes", "off" or "", a number, null, an expression giving
 *   nothing) is refused with the field and the value: a switch that decides whether money moves is
 *   not guessed. A guard also refuses "false" and 0: only a real `false` may turn it off.
 *
 * On and off are what n8n's own `validateType: 'boolean'` reads as true and false. The top-level
 * exemptions declare it (n8n then refuses other values itself, before this). The switches inside an
 * Options collection do not: n8n 2.40.7 applies it there only when the whole collection is read,
 * maps "false" and 0 to false, and makes a read of the switch by its path fail on a null value with
 * "Cannot convert undefined or null to object"; so the nodes read each switch by its path through
 * this function.
 */
export type SwitchKind = 'guard' | 'exemption';

/** The stored (raw) value of a node parameter at a dotted path (`options.dryRun`), before any expression runs. */
export function storedAt(parameters: object, path: string): unknown {
	let value: unknown = parameters;
	for (const step of path.split('.')) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[step] : undefined;
	return value;
}

/**
 * The switch's value: `stored` is the raw parameter (undefined when the node does not hold it: the
 * default applies), `value` what n8n resolved it to. Throws FieldError naming `label` and the value.
 */
export function readSwitch(stored: unknown, value: unknown, fallback: boolean, label: string, kind: SwitchKind): boolean {
	if (stored === undefined) return fallback;
	if (typeof value === 'boolean') return value;
	// As n8n's tryToParseBoolean reads them: "true"/"false" in any case, and what Number() reads as 1 or 0.
	const text = typeof value === 'string' ? value.toLowerCase() : undefined;
	const number = typeof value === 'number' ? value : text !== undefined && text.trim() !== '' ? Number(text) : NaN;
	if (text === 'true' || number === 1) return true;
	if ((text === 'false' || number === 0) && kind === 'exemption') return false;
	const shown =
		value === undefined
			? 'nothing (the expression gave no value)'
			: typeof value === 'string'
				? `the text ${JSON.stringify(value)}`
				: `${typeof value} ${JSON.stringify(value)}`;
	const rule =
		kind === 'guard'
			? `must be true or false, and only a real false turns it off (got ${shown}). Nothing was sent. Write it as a true/false expression, e.g. {{ $vars.DRY_RUN === 'true' }}`
			: `must be true or false (got ${shown}). Nothing was sent. Write it as a true/false expression, e.g. {{ $vars.ALLOW === 'true' }}`;
	throw new FieldError(label, rule);
}
