import { z } from 'zod';
import { parseRef, type RefKind } from '../refs';
import { JsonObject, ProjectId, UuidString, DateTimeOutput } from './common';

function refOf(kinds: RefKind[]) {
  return z.string().superRefine((value, ctx) => {
    const parsed = parseRef(value);
    if (!parsed.ok) {
      ctx.addIssue({ code: 'custom', message: `"${value}" ${parsed.reason}` });
    } else if (!kinds.includes(parsed.ref.kind)) {
      ctx.addIssue({ code: 'custom', message: `"${value}" must be a ${kinds.join(' or ')} ref` });
    }
  });
}

const nullableRef = (kinds: RefKind[]) => refOf(kinds).nullable().optional();

/** Request of POST /feedback/create (spec 2.1). Only spec fields are sent. */
export const FeedbackCreateRequest = z
  .strictObject({
    project_id: ProjectId,
    // Feedback targets calls as well as objects and ops.
    svc_ref: refOf(['object', 'call', 'op']),
    feedback_type: z.string().min(1),
    payload: JsonObject,
    id: UuidString.nullable().optional(),
    creator: z.string().nullable().optional(),
    annotation_ref: nullableRef(['object']),
    runnable_ref: nullableRef(['op']),
    call_ref: nullableRef(['call']),
    trigger_ref: nullableRef(['object']),
    svc_user_id: z.never({ message: 'must not be set by the client; the server fills it in' }).optional(),
  })
  .superRefine((req, ctx) => {
    for (const field of ['svc_ref', 'annotation_ref', 'runnable_ref', 'call_ref', 'trigger_ref'] as const) {
      const value = req[field];
      if (typeof value !== 'string') continue;
      const parsed = parseRef(value);
      if (parsed.ok && parsed.ref.projectId !== req.project_id) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `ref project "${parsed.ref.projectId}" differs from project_id "${req.project_id}"`,
        });
      }
    }
  });
export type FeedbackCreateRequest = z.input<typeof FeedbackCreateRequest>;

/** Response of POST /feedback/create; unknown fields are kept. */
export const FeedbackCreateResponse = z.looseObject({
  id: z.string(),
  created_at: DateTimeOutput,
  svc_user_id: z.string(),
  payload: JsonObject,
});
export type FeedbackCreateResponse = z.infer<typeof FeedbackCreateResponse>;
