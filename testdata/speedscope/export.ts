// Converts a profile to speedscope's file format with speedscope's own
// importers and exporter (src/import, src/lib/file-format.ts).
import * as fs from 'fs'
import {importProfileGroupFromText} from './src/import'
import {exportProfileGroup} from './src/lib/file-format'

async function main() {
  const [input, output] = process.argv.slice(2)
  const text = fs.readFileSync(input, 'utf8')
  const group = await importProfileGroupFromText(input.split('/').pop()!, text)
  if (!group) throw new Error('speedscope could not import ' + input)
  fs.writeFileSync(output, JSON.stringify(exportProfileGroup(group)))
}
main()
