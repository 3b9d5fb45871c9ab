import { getNamedType, GraphQLError, type ASTVisitor, type ValidationContext, type ValueNode } from 'graphql';
import { Int64Scalar, UInt64Scalar } from '../lib/graphql/graphql-scalars.ts';

const EXACT_SCALARS = new Map([UInt64Scalar, Int64Scalar].map((scalar) => [scalar.name, scalar]));

/**
 * Validation rule of the gateway for literals of the 64-bit scalars. The supergraph knows UInt64 and Int64 only by name, so
 * without this rule a bad literal would pass the gateway and fail in a subgraph, and — worse — the query planner re-prints
 * integer literals through JavaScript numbers, so `userExample(id: 9007199254740993)` would silently reach the subgraph as
 * 9007199254740992. Here each such literal is checked with the scalar's own rules, and an integer literal beyond 2^53 is
 * refused with the advice to write it as a string (which passes through exactly).
 */
export function exactInt64LiteralsRule(context: ValidationContext): ASTVisitor {
  const check = (node: ValueNode): void => {
    const inputType = context.getInputType();
    const scalar = inputType ? EXACT_SCALARS.get(getNamedType(inputType).name) : undefined;
    if (!scalar) return;
    try {
      scalar.parseLiteral(node, undefined);
    } catch (error) {
      context.reportError(new GraphQLError(error instanceof Error ? error.message : String(error), { nodes: node }));
      return;
    }
    if (node.kind === 'IntValue' && !Number.isSafeInteger(Number(node.value))) {
      context.reportError(
        new GraphQLError(
          `${scalar.name} literal ${node.value} is beyond 2^53 and would lose digits on its way through the gateway: write it as a string ("${node.value}")`,
          { nodes: node },
        ),
      );
    }
  };
  return { IntValue: check, FloatValue: check, StringValue: check, BooleanValue: check, EnumValue: check };
}
