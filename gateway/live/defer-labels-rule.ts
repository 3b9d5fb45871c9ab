import { GraphQLError, Kind, type ASTVisitor, type DirectiveNode, type ValidationContext } from 'graphql';

/** The longest @defer label the gateway takes: a label is echoed in every incremental item of its fragment. */
export const MAX_DEFER_LABEL_LENGTH = 256;

/**
 * Validation rule of the live door for @defer labels, as the incremental delivery RFC has it and as graphql-js 17's
 * DeferStreamDirectiveLabelRule (17.0.0-alpha.9) words it — graphql 16, which Apollo runs on, has no such rule: a label
 * is a static string (a variable would come back as its AST; a literal of another type is already graphql-js's type
 * error), unique in the document (two fragments with one label would be merged into one incremental item). And, the gateway's own bound, at most MAX_DEFER_LABEL_LENGTH characters:
 * a label is repeated in each item of its fragment, so a long one multiplies the reply.
 */
export function deferLabelsRule(context: ValidationContext): ASTVisitor {
  const known = new Map<string, DirectiveNode>();
  return {
    Directive(node) {
      if (node.name.value !== 'defer' && node.name.value !== 'stream') return;
      const label = node.arguments?.find((argument) => argument.name.value === 'label')?.value;
      if (!label || label.kind === Kind.NULL) return;
      // A literal of another type is graphql-js's own error (ValuesOfCorrectTypeRule); a variable is this rule's.
      if (label.kind === Kind.VARIABLE) {
        context.reportError(new GraphQLError(`Directive "${node.name.value}"'s label argument must be a static string.`, { nodes: node }));
        return;
      }
      if (label.kind !== Kind.STRING) return;
      if (label.value.length > MAX_DEFER_LABEL_LENGTH) {
        context.reportError(
          new GraphQLError(`Directive "${node.name.value}"'s label argument is longer than ${MAX_DEFER_LABEL_LENGTH} characters.`, {
            nodes: node,
          }),
        );
        return;
      }
      const first = known.get(label.value);
      if (first) context.reportError(new GraphQLError('Defer/Stream directive label argument must be unique.', { nodes: [first, node] }));
      else known.set(label.value, node);
    },
  };
}
