import { FieldError } from './fieldError';
import { codePoints } from './idempotency';

/**
 * An ID that goes into a request path: anything that could change which endpoint the request reaches is
 * refused before sending (`.` and `..` are normalised away: Cancel with `..` sent `POST /api/v1/cancel`).
 */
export function validatePathId(value: unknown, field: string): string {
	const id = typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '';
	if (id === '') throw new FieldError(field, 'is required');
	if (id === '.' || id === '..') throw new FieldError(field, `must be an ID, not "${id}" (a path step)`);
	const bad = /[/\\?#%\s\p{C}]/u.exec(id);
	if (bad) {
		const shown = /[\s\p{C}]/u.test(bad[0]) ? codePoints(bad[0]) : `"${bad[0]}"`;
		throw new FieldError(field, `must be an ID such as the one Get Many returns: it may not contain ${shown} (got "${id.slice(0, 80)}")`);
	}
	return id;
}

/** True when a request path (below /api/v1) has a `.`/`..` step, raw or percent-encoded. */
export function hasDotSegment(path: string): boolean {
	const pathOnly = path.split(/[?#]/, 1)[0];
	return pathOnly.split('/').some((step) => /^(\.|%2e){1,2}$/i.test(step));
}
