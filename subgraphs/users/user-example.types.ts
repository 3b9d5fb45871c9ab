/** Domain types of Area A. Transports render these; repositories produce them. */

/** A stored user record. The password hash never leaves the repository. */
export interface UserExample {
  /** uint64 as decimal text. */
  id: string;
  name: string;
  email: string;
  phone: string;
  avatar: string;
  age: number;
  gender: number;
  status: number;
  /** int64 as decimal text; Unix time in seconds by convention (the reference never states a unit). */
  loginAt: string;
  createdAt: Date;
  updatedAt: Date;
}

/** Fields of a create request. Numbers arrive already typed; an enum value may be any integer until validated. */
export interface CreateUserExampleInput {
  name: string;
  email: string;
  password: string;
  phone: string;
  avatar: string;
  age: number;
  gender: number;
}

/** An update: a key that is present is written, whatever its value (0 and "" included). */
export interface UpdateUserExamplePatch {
  name?: string;
  email?: string;
  password?: string;
  phone?: string;
  avatar?: string;
  age?: number;
  gender?: number;
  status?: number;
  /** int64 as decimal text. */
  loginAt?: string;
}

/** The List request's `params`, as the reference's api.types.Params carries it. */
export interface ListParamsInput {
  page?: number | null;
  limit?: number | null;
  sort?: string | null;
  columns?: readonly ListColumnInput[] | null;
}

export interface ListColumnInput {
  name?: string | null;
  exp?: string | null;
  value?: string | null;
  logic?: string | null;
}

export interface UserExamplePage {
  /** int64 as decimal text. */
  total: string;
  userExamples: UserExample[];
}
