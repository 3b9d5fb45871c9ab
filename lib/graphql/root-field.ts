import { getOperationAST, Kind, type DocumentNode, type FieldNode, type OperationDefinitionNode } from 'graphql';

/**
 * A subscription's one root field (validation allows exactly one), as the live doors read it: the response key its
 * events answer under (where a cursor is found, where an error that ends the stream is placed), and what its `after`
 * argument is bound to (what Last-Event-ID fills in, what counts as a resume).
 */

/** The operation's first root field (a subscription's only one). */
export function rootField(operation: OperationDefinitionNode): FieldNode | undefined {
  const field = operation.selectionSet.selections.find((selection) => selection.kind === Kind.FIELD);
  return field?.kind === Kind.FIELD ? field : undefined;
}

/** The response key of the root field (its alias, else its name), of an operation or of a document's chosen one. */
export function rootResponseKey(operation: OperationDefinitionNode | undefined): string | undefined;
export function rootResponseKey(document: DocumentNode, operationName: string | null | undefined): string | undefined;
export function rootResponseKey(
  source: OperationDefinitionNode | DocumentNode | undefined,
  operationName?: string | null,
): string | undefined {
  const operation = source?.kind === Kind.DOCUMENT ? (getOperationAST(source, operationName) ?? undefined) : source;
  const field = operation && rootField(operation);
  return field ? (field.alias ?? field.name).value : undefined;
}

/** The variable an argument of the root field is bound to, when it is bound to one. */
export function rootArgumentVariable(operation: OperationDefinitionNode, name: string): string | undefined {
  const argument = rootField(operation)?.arguments?.find((each) => each.name.value === name);
  return argument?.value.kind === Kind.VARIABLE ? argument.value.name.value : undefined;
}

/** Whether the root field is given a value for `name`: a literal other than null, or a variable with a value. */
export function rootArgumentGiven(operation: OperationDefinitionNode, name: string, variables: Readonly<Record<string, unknown>>): boolean {
  const argument = rootField(operation)?.arguments?.find((each) => each.name.value === name);
  if (!argument) return false;
  if (argument.value.kind === Kind.VARIABLE)
    return variables[argument.value.name.value] !== undefined && variables[argument.value.name.value] !== null;
  return argument.value.kind !== Kind.NULL;
}
