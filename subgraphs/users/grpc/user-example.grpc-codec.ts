import { InvalidArgumentError } from '../../../lib/errors.ts';
import { parseUint64 } from '../../../lib/int64.ts';
import { GENDER_NAMES, GENDER_TYPES } from '../../../contracts/user-records.ts';
import type {
  CreateUserExampleInput,
  ListParamsInput,
  UpdateUserExamplePatch,
  UserExample,
  UserExamplePage,
} from '../user-example.types.ts';

/**
 * Area A's messages as @grpc/proto-loader hands them over (see PROTO_LOADER_OPTIONS), and the conversions between them and
 * the service's domain types. No rule lives here: values are only re-shaped, and whatever a caller sent (an enum number the
 * proto does not define included) reaches the service, which reports it.
 */

/** An enum value: its name, or the bare number when the proto defines no such value. */
export type GenderWire = string | number;

export interface CreateUserExampleRequestWire {
  name: string;
  email: string;
  password: string;
  phone: string;
  avatar: string;
  age: number;
  gender: GenderWire;
}

export interface CreateUserExampleReplyWire {
  id: string;
}

/** Get, Delete (and the path part of Update): uint64 as decimal text. */
export interface IdRequestWire {
  id: string;
}

/** Body fields are proto3 `optional`: a key is present exactly when the caller sent the field. */
export interface UpdateUserExampleByIDRequestWire extends IdRequestWire {
  name?: string;
  email?: string;
  password?: string;
  phone?: string;
  avatar?: string;
  age?: number;
  gender?: GenderWire;
  status?: number;
  login_at?: string;
}

export interface UserExampleWire {
  id: string;
  name: string;
  email: string;
  phone: string;
  avatar: string;
  age: number;
  gender: GenderWire;
  status: number;
  login_at: string;
  created_at: string;
  updated_at: string;
}

export interface GetUserExampleByIDReplyWire {
  userExample: UserExampleWire;
}

export interface ColumnWire {
  name: string;
  exp: string;
  value: string;
  logic: string;
}

export interface ParamsWire {
  page: number;
  limit: number;
  sort: string;
  columns: ColumnWire[];
}

export interface ListUserExampleRequestWire {
  /** null when the caller did not send `params` (message fields have no zero value). */
  params: ParamsWire | null;
}

export interface ListUserExampleReplyWire {
  total: string;
  userExamples: UserExampleWire[];
}

export type EmptyWire = Record<string, never>;

/**
 * A uint64 field as canonical decimal text. proto-loader already renders it so; the check only guards against a loader
 * configured differently, which would otherwise hand the service a non-canonical id.
 */
export function decodeUint64(value: unknown, subject: string, field: string): string {
  const text = parseUint64(String(value));
  if (text === undefined) {
    const description = 'value must be an unsigned 64-bit integer';
    throw InvalidArgumentError.fromViolations(subject, [{ field, description }]);
  }
  return text;
}

/** Enum name → number. An undefined value arrives as its number and is passed on for the service to reject. */
export function decodeGender(value: GenderWire): number {
  if (typeof value === 'number') return value;
  // Names come from the same proto as GENDER_TYPES; an unknown name would become NaN, which the service rejects too.
  return Object.hasOwn(GENDER_TYPES, value) ? GENDER_TYPES[value as keyof typeof GENDER_TYPES] : Number.NaN;
}

export function decodeCreateRequest(request: CreateUserExampleRequestWire): CreateUserExampleInput {
  return {
    name: request.name,
    email: request.email,
    password: request.password,
    phone: request.phone,
    avatar: request.avatar,
    age: request.age,
    gender: decodeGender(request.gender),
  };
}

/** The fields the caller sent, whatever their value; absent fields are left out of the patch. */
export function decodeUpdatePatch(request: UpdateUserExampleByIDRequestWire): UpdateUserExamplePatch {
  const patch: UpdateUserExamplePatch = {};
  if (request.name !== undefined) patch.name = request.name;
  if (request.email !== undefined) patch.email = request.email;
  if (request.password !== undefined) patch.password = request.password;
  if (request.phone !== undefined) patch.phone = request.phone;
  if (request.avatar !== undefined) patch.avatar = request.avatar;
  if (request.age !== undefined) patch.age = request.age;
  if (request.gender !== undefined) patch.gender = decodeGender(request.gender);
  if (request.status !== undefined) patch.status = request.status;
  if (request.login_at !== undefined) patch.loginAt = String(request.login_at);
  return patch;
}

export function decodeListParams(request: ListUserExampleRequestWire): ListParamsInput | null {
  const { params } = request;
  if (!params) return null;
  return {
    page: params.page,
    limit: params.limit,
    sort: params.sort,
    columns: params.columns.map(({ name, exp, value, logic }) => ({ name, exp, value, logic })),
  };
}

/** Domain record → UserExample message: timestamps as RFC 3339 UTC text, gender by name. The password is not a field. */
export function encodeUserExample(record: UserExample): UserExampleWire {
  return {
    id: record.id,
    name: record.name,
    email: record.email,
    phone: record.phone,
    avatar: record.avatar,
    age: record.age,
    gender: GENDER_NAMES[record.gender] ?? record.gender,
    status: record.status,
    login_at: record.loginAt,
    created_at: record.createdAt.toISOString(),
    updated_at: record.updatedAt.toISOString(),
  };
}

export function encodeListReply(page: UserExamplePage): ListUserExampleReplyWire {
  return { total: page.total, userExamples: page.userExamples.map(encodeUserExample) };
}
