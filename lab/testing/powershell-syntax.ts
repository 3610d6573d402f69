/**
 * A PowerShell syntax check without PowerShell, on the shared tree-sitter parser
 * (powershell-parser.ts). It finds syntax errors, not semantic ones (that would need
 * PSScriptAnalyzer, which needs pwsh, which Debian does not ship).
 */
import { powerShellParser, syntaxProblems } from './powershell-parser.ts';

export type PowerShellChecker = (text: string) => string[];

/** The checker, or the reason it is unavailable. */
export async function powerShellChecker(): Promise<PowerShellChecker | { unavailable: string }> {
  const parse = await powerShellParser();
  if ('unavailable' in parse) return parse;
  return (text: string) => {
    const root = parse(text);
    return root === null ? ['the parser returned no tree'] : syntaxProblems(root);
  };
}
