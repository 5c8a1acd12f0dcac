// SPDX-License-Identifier: GPL-2.0-or-later
// Validate fwdist SBOMs with the official tools: a CycloneDX 1.6 JSON file
// with @cyclonedx/cyclonedx-library's strict JSON schema validator, and every
// licence expression (CycloneDX "expression" values, SPDX LicenseConcluded,
// LicenseInfoInFile and PackageLicenseInfoFromFiles) with
// spdx-expression-parse. Run with NODE_PATH at the scratch node_modules.
// Usage: node validate.js cyclonedx FILE | node validate.js spdx FILE
// Prints one line per problem; exits 1 on any, 0 when all is valid.
'use strict'
const fs = require('fs')
const parse = require('spdx-expression-parse')

const [kind, file] = process.argv.slice(2)
const text = fs.readFileSync(file, 'utf8')
let bad = 0
const expressions = []

function checkExpression (where, expr) {
  if (expr === 'NOASSERTION' || expr === 'NONE') return
  try {
    parse(expr)
  } catch (e) {
    console.log(`${file}: ${where}: bad SPDX expression '${expr}': ${e.message}`)
    bad++
  }
}

async function cyclonedx () {
  const CDX = require('@cyclonedx/cyclonedx-library')
  const validator = new CDX.Validation.JsonStrictValidator(CDX.Spec.Version.v1dot6)
  const errors = await validator.validate(text)
  if (errors !== null) {
    console.log(`${file}: not valid CycloneDX 1.6 (strict): ${JSON.stringify(errors)}`)
    bad++
  }
  const walk = (components) => {
    for (const c of components || []) {
      for (const l of c.licenses || []) {
        if (l.expression !== undefined) expressions.push([c['bom-ref'], l.expression])
      }
      walk(c.components)
    }
  }
  walk(JSON.parse(text).components)
}

function spdx () {
  const tags = ['LicenseConcluded', 'LicenseInfoInFile', 'PackageLicenseInfoFromFiles',
    'PackageLicenseConcluded', 'PackageLicenseDeclared']
  text.split('\n').forEach((line, i) => {
    const m = /^([A-Za-z]+): (.*)$/.exec(line)
    if (m && tags.includes(m[1])) expressions.push([`line ${i + 1}`, m[2]])
  })
}

(async () => {
  if (kind === 'cyclonedx') await cyclonedx()
  else if (kind === 'spdx') spdx()
  else throw new Error(`unknown kind ${kind}`)
  if (expressions.length === 0) {
    console.log(`${file}: no licence expression found`)
    bad++
  }
  for (const [where, expr] of expressions) checkExpression(where, expr)
  console.log(`${file}: ${expressions.length} licence expressions checked`)
  process.exit(bad ? 1 : 0)
})().catch((e) => { console.log(`${file}: ${e.stack}`); process.exit(1) })
