import * as vscode from 'vscode';
describe('probe', () => {
  it('prints', async () => {
    const ext = vscode.extensions.getExtension('svc.svc-vscode')!;
    console.log('PROBE trusted', vscode.workspace.isTrusted, 'active', ext.isActive);
    const c = vscode.workspace.getConfiguration('svc');
    console.log('PROBE get', c.get('baseUrl'), c.get('trainingBaseUrl'), c.get('project'));
    console.log('PROBE inspect', JSON.stringify(c.inspect('baseUrl')), JSON.stringify(c.inspect('project')));
    const exp = await ext.activate();
    console.log('PROBE activated', !!exp, process.env.SVC_HOST_TRUST);
  });
});
