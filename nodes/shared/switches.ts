import { FieldError } from './fieldError';

/**
 * Boolean options that guard money or events, read fail-closed (the list: docs/guard-rails.md): n8n hands
 * a boolean written as an expression over as whatever it gives (`$vars` and `$env` are always text).
 * - A guard (on is the safe side: Dry Run, ...) is off only for a real `false` (or unset, its default).
 * - An exemption (on weakens a guard: Allow Derived Keys, ...) is on or off as n8n's `validateType:
 *   'boolean'` reads true and false ("true", 1, "0", ...).
 * - Anything else is refused, naming the field and the value: a switch that decides whether money moves
 *   is not guessed. Switches inside an Options collection are read by their path through this function:
 *   n8n 2.40.7 applies `validateType` there only when the whole collection is read.
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
