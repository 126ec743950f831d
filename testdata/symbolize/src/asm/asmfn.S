/* Assembly as C libraries have it (glibc's memcpy, setjmp): gas (2.40)
   describes a function typed with .type by a DW_TAG_subprogram, and a bare
   label by nothing but line table rows. asm_plain is such a label, and
   local: it is in .symtab only, not .dynsym, so that a stripped binary
   names it only through its debug file's symbol table. Each has an alias,
   as glibc's functions have (__finitel, finitel, __GI___finitel):
   asm_typed's has an entry of its own, asm_plain's a symbol only. */
	.text
	.globl	asm_typed
	.type	asm_typed, @function
asm_typed:
	lea	1(%rdi), %rax
	imul	$3, %rax, %rax
	call	asm_plain
	ret
	.size	asm_typed, .-asm_typed
	.globl	asm_typed_alias
	.type	asm_typed_alias, @function
	.set	asm_typed_alias, asm_typed

asm_plain:
	lea	2(%rax), %rax
	imul	$5, %rax, %rax
	xor	$7, %rax
	ret
	.size	asm_plain, .-asm_plain
	.set	asm_plain_alias, asm_plain
	.size	asm_plain_alias, .-asm_plain

	.section .note.GNU-stack,"",@progbits
