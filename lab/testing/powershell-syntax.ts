/**
 * A PowerShell syntax check without PowerShell: the tree-sitter PowerShell grammar (npm
 * `tree-sitter-powershell`, its .wasm) run by `web-tree-sitter`. Both are optional; without them
 * the check reports why it cannot run. It finds syntax errors, not semantic ones (that would
 * need PSScriptAnalyzer, which needs pwsh, which Debian does not ship).
 */
import { createRequire } from 'node:module';

interface TsNode {
  type: string;
  isError: boolean;
  isMissing: boolean;
  startPosition: { row: number; column: number };
  children: TsNode[];
}
interface TsParser {
  setLanguage(language: unknown): void;
  parse(text: string): { rootNode: TsNode & { hasError: boolean } } | null;
}
interface TreeSitterModule {
  Parser: { init(): Promise<void>; new (): TsParser };
  Language: { load(path: string): Promise<unknown> };
}

export type PowerShellChecker = (text: string) => string[];

/** The checker, or the reason it is unavailable. */
export async function powerShellChecker(): Promise<PowerShellChecker | { unavailable: string }> {
  const moduleName = 'web-tree-sitter';
  let ts: TreeSitterModule;
  let wasm: string;
  try {
    ts = (await import(moduleName)) as TreeSitterModule;
    wasm = createRequire(import.meta.url).resolve(
      'tree-sitter-powershell/tree-sitter-powershell.wasm',
    );
  } catch {
    return {
      unavailable: 'npm packages web-tree-sitter and tree-sitter-powershell are not installed',
    };
  }
  await ts.Parser.init();
  const parser = new ts.Parser();
  parser.setLanguage(await ts.Language.load(wasm));
  return (text: string) => {
    const tree = parser.parse(text);
    if (tree === null) return ['the parser returned no tree'];
    const problems: string[] = [];
    const walk = (node: TsNode) => {
      if (node.isError || node.isMissing) {
        const at = `${node.startPosition.row + 1}:${node.startPosition.column + 1}`;
        problems.push(`${at}: ${node.isMissing ? `missing ${node.type}` : 'syntax error'}`);
      }
      node.children.forEach(walk);
    };
    walk(tree.rootNode);
    return problems;
  };
}
