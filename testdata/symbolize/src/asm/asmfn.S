/* Assembly as C libraries have it (glibc's memcpy, setjmp): gas (2.40)
   describes a function typed with .type by a DW_TAG_subprogram, and a bare
   label by nothing but line table rows. asm_plain is such a label, and
   local: it is in .symtab only, not .dynsym, so that a stripped binary
   names it only through its debug file's symbol table. */
	.text
	.globl	asm_typed
	.type	asm_typed, @function
asm_typed:
	lea	1(%rdi), %rax
	imul	$3, %rax, %rax
	call	asm_plain
	ret
	.size	asm_typed, .-asm_typed

asm_plain:
	lea	2(%rax), %rax
	imul	$5, %rax, %rax
	xor	$7, %rax
	ret

	.section .note.GNU-stack,"",@progbits
