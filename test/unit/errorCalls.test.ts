import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/**
 * In the nodes, a function named `…Error` (operationError, keyedWriteError, itemError) returns the
 * error and leaves the throw to its caller. A bare call does nothing (the sandbox's `fail` throws,
 * which makes that slip easy to make), so every such call must be thrown, returned or assigned.
 * Not ours to return: n8n's `emitError` (a trigger's way to report) and callbacks named `on…Error`.
 */
const REPORTING_CALLS = /^(emitError|on\w*Error)$/;
function bareErrorCalls(fileName: string, text: string): string[] {
	const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
	const found: string[] = [];
	const visit = (node: ts.Node): void => {
		if (ts.isExpressionStatement(node)) {
			let expression: ts.Expression = node.expression;
			while (ts.isParenthesizedExpression(expression) || ts.isAwaitExpression(expression) || ts.isVoidExpression(expression)) {
				expression = expression.expression;
			}
			if (ts.isCallExpression(expression)) {
				const callee = ts.isPropertyAccessExpression(expression.expression) ? expression.expression.name : expression.expression;
				if (ts.isIdentifier(callee) && /^[a-z]\w*Error$/.test(callee.text) && !REPORTING_CALLS.test(callee.text)) {
					const { line } = source.getLineAndCharacterOfPosition(node.getStart());
					found.push(`${fileName}:${line + 1} ${callee.text}(…)`);
				}
			}
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return found;
}

function sourceFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) return sourceFiles(path);
		return entry.name.endsWith('.ts') ? [path] : [];
	});
}

const root = join(__dirname, '..', '..');

describe('error-returning helpers in the nodes', () => {
	it('finds a bare call, and passes thrown, returned and assigned ones', () => {
		const text = [
			'function f(ctx, i) {',
			'  operationError(ctx, "lost", i);',
			'  await keyedWriteError(ctx, e, i, k, "x");',
			'  helpers.itemError(ctx, e, i);',
			'  throw operationError(ctx, "kept", i);',
			'}',
			'const e = operationError(ctx, "kept", 0);',
			'function g() { return itemError(ctx, e, 0); }',
			'console.error("not ours");',
			'ctx.emitError(new Error("reported"));',
			'onError(e);',
		].join('\n');
		expect(bareErrorCalls('snippet.ts', text)).toEqual(['snippet.ts:2 operationError(…)', 'snippet.ts:3 keyedWriteError(…)', 'snippet.ts:4 itemError(…)']);
	});

	it('are never called without using the error they return', () => {
		const files = sourceFiles(join(root, 'nodes'));
		expect(files.length).toBeGreaterThan(40);
		const found = files.flatMap((file) => bareErrorCalls(relative(root, file), readFileSync(file, 'utf8')));
		expect(found).toEqual([]);
	});
});
