/** The ids package.json gives the views, the custom editor and the panel, shared by both bundles. */
export const THREADS_VIEW = 'svc.threads';
export const CHECKPOINTS_VIEW = 'svc.checkpoints';
export const RUNS_VIEW = 'svc.runs';
export const TRAJECTORY_VIEWER = 'svc.trajectoryViewer';
export const DASHBOARD_PANEL = 'svc.dashboard';
export const COMPARE_PANEL = 'svc.dashboardCompare';
export const MCP_PROVIDER = 'svc.mcp';
/** The scheme of a thread's read-only details document (threads/details.ts); feedback's providers serve it too. */
export const THREAD_SCHEME = 'svc-thread';
