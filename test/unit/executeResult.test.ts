/**
 * The harness's reading of `n8n execute`: n8n 2.40.7 sometimes dies with SIGSEGV while exiting,
 * after it printed the finished run (reproduced without any community package installed). The run's
 * printed outcome decides; a crash before the run was printed stays a failure.
 */
import { executeResult } from '../../harness/n8nProcess';

const printed = (status: string, finished: boolean) => ['{', `  "status": "${status}",`, `  "finished": ${finished},`, '  "mode": "cli"', '}', ''].join('\n');

describe('executeResult', () => {
	it('a clean exit is taken as it is', () => {
		const r = executeResult({ code: 0, signal: null, stdout: printed('success', true), stderr: '' });
		expect(r.code).toBe(0);
		expect(r.run?.status).toBe('success');
		expect(r.crashedAtExit).toBeUndefined();
	});

	it('SIGSEGV after a printed successful run: exit code 0, the crash on record', () => {
		const r = executeResult({ code: null, signal: 'SIGSEGV', stdout: printed('success', true), stderr: '' });
		expect(r).toMatchObject({ code: 0, signal: 'SIGSEGV', crashedAtExit: 'SIGSEGV' });
	});

	it('SIGSEGV after n8n reported a failed run: exit code 1, as n8n gives a failed run', () => {
		const stdout = `Execution was NOT successful. See log message for details.\nExecution error:\n${printed('error', true)}`;
		expect(executeResult({ code: null, signal: 'SIGSEGV', stdout, stderr: '' })).toMatchObject({ code: 1, crashedAtExit: 'SIGSEGV' });
	});

	it('a crash before the run was printed, another signal, or an unfinished run stay failures', () => {
		expect(executeResult({ code: null, signal: 'SIGSEGV', stdout: 'Starting...', stderr: '' }).code).toBeNull();
		expect(executeResult({ code: null, signal: 'SIGKILL', stdout: printed('success', true), stderr: '' }).code).toBeNull();
		expect(executeResult({ code: null, signal: 'SIGSEGV', stdout: printed('running', false), stderr: '' }).code).toBeNull();
	});
});
