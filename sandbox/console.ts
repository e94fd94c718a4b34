/** The browser console's static files (sandbox/console/), served on the main server's `/`. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const FILES: Record<string, { file: string; type: string }> = {
	'/': { file: 'index.html', type: 'text/html; charset=utf-8' },
	'/console/console.js': { file: 'console.js', type: 'text/javascript; charset=utf-8' },
	'/console/console.css': { file: 'console.css', type: 'text/css; charset=utf-8' },
};

/** The file for a GET of `path`, read on every request so an edit shows on reload; undefined otherwise. */
export function consoleAsset(path: string): { body: Buffer; type: string } | undefined {
	const entry = FILES[path === '/console' || path === '/console/' ? '/' : path];
	return entry ? { body: readFileSync(join(__dirname, 'console', entry.file)), type: entry.type } : undefined;
}
