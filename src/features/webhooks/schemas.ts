import { Type } from '@sinclair/typebox';
import { DateTimeView, Nullable } from '../../http/schemas/common.ts';

/** A registered endpoint as the back office shows it (never its secret). */
export const Webhook = Type.Object({
  id: Type.String(),
  tenant: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  active: Type.Boolean(),
  inactiveReason: Nullable(Type.String({ description: 'operator or failing' })),
  createdAt: DateTimeView,
  createdBy: Type.String(),
  lastSuccessAt: Nullable(DateTimeView),
  deadStreak: Type.Integer({ description: 'Deliveries dead-lettered in a row, without a success between them.' }),
});
export const WithSecret = Type.Object({
  ...Webhook.properties,
  secret: Type.String({ description: 'The signing secret, shown this once.' }),
});
export const Delivery = Type.Object({
  id: Type.String({ description: 'The x-svc-delivery header, and the envelope id.' }),
  webhookId: Type.String(),
  tenant: Type.String(),
  eventId: Type.String(),
  eventType: Type.String(),
  state: Type.String({ description: 'pending, failed, delivered or dead' }),
  attempts: Type.Integer(),
  nextAttemptAt: Nullable(DateTimeView),
  lastStatus: Nullable(Type.Integer()),
  lastError: Nullable(Type.String()),
  createdAt: DateTimeView,
  finishedAt: Nullable(DateTimeView),
});
