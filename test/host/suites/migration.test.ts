// Settings that moved: what an earlier version kept elsewhere is carried over once.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { migrateFeedbackCreator, OLD_CREATOR_KEY } from '../../../src/feedback/creatorMigration';
import { api, resetSettings } from './helpers';

describe('migration of old state', () => {
  afterEach(resetSettings);
  const creator = () => vscode.workspace.getConfiguration('svc').inspect<string>('feedback.creator')!;

  it('moves a feedback creator kept in globalState to the svc.feedback.creator user setting, once', async () => {
    const a = await api();
    await a.globalState.update(OLD_CREATOR_KEY, 'Dana Reviewer');
    assert.strictEqual(await migrateFeedbackCreator(a.globalState), 'Dana Reviewer');
    assert.strictEqual(creator().globalValue, 'Dana Reviewer', 'in the user settings');
    assert.strictEqual(creator().workspaceValue, undefined, 'never the workspace settings');
    assert.strictEqual(a.globalState.get(OLD_CREATOR_KEY), undefined, 'gone from globalState');
    await vscode.workspace.getConfiguration('svc').update('feedback.creator', 'Someone Else', vscode.ConfigurationTarget.Global);
    assert.strictEqual(await migrateFeedbackCreator(a.globalState), undefined, 'nothing left to move');
    assert.strictEqual(creator().globalValue, 'Someone Else');
  });

  it('keeps a creator the user already set, and still forgets the old one', async () => {
    const a = await api();
    await vscode.workspace.getConfiguration('svc').update('feedback.creator', 'Set By Hand', vscode.ConfigurationTarget.Global);
    await a.globalState.update(OLD_CREATOR_KEY, 'Old Name');
    assert.strictEqual(await migrateFeedbackCreator(a.globalState), undefined);
    assert.strictEqual(creator().globalValue, 'Set By Hand');
    assert.strictEqual(a.globalState.get(OLD_CREATOR_KEY), undefined);
  });
});
