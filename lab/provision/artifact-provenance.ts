/** What an artifact cache says of how its Kubernetes was built (the recipe.json build.sh writes), for results. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

const RecipeSchema = z.object({
  recipe: z.string(),
  kubernetes: z.string(),
  source: z.object({ package: z.string(), version: z.string(), suite: z.string() }),
  go: z.string(),
  fixes: z.array(z.string()).default([]),
  etcd: z.string().optional(),
});

/** One line on the cache's build, or undefined when it has no (readable) recipe.json. */
export function artifactProvenance(cacheDir: string): string | undefined {
  const file = join(cacheDir, 'recipe.json');
  if (!existsSync(file)) return undefined;
  const parsed = RecipeSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) return undefined;
  const r = parsed.data;
  const fixes = r.fixes.length === 0 ? '' : `; ${r.fixes.join('; ')}`;
  return `Kubernetes ${r.kubernetes} built from Debian ${r.source.suite}'s source package ${r.source.package} ${r.source.version} with ${r.go} (recipe ${r.recipe}${fixes})${r.etcd === undefined ? '' : `; etcd: ${r.etcd}`}`;
}
