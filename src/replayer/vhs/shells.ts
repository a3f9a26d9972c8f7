/**
 * The shells VHS starts and the prompt and environment it gives them
 * (charmbracelet/vhs shell.go): bash and osh get PS1 "> " in VHS's indigo,
 * zsh its PROMPT, fish/nu/xonsh/powershell theirs on the command line.
 */
export interface VhsShell {
  command: string;
  args: string[];
  env: Record<string, string>;
}

const PS1 = '\\[\\e[38;2;90;86;224m\\]> \\[\\e[0m\\]';

export const SHELLS: Record<string, VhsShell> = {
  bash: { command: 'bash', args: ['--noprofile', '--norc', '--login', '+o', 'history'], env: { PS1, BASH_SILENCE_DEPRECATION_WARNING: '1' } },
  zsh: { command: 'zsh', args: ['--histnostore', '--no-rcs'], env: { PROMPT: '%F{#5B56E0}> %F{reset_color}' } },
  fish: {
    command: 'fish',
    args: ['--login', '--no-config', '--private', '-C', 'function fish_greeting; end', '-C', 'function fish_prompt; set_color 5B56E0; echo -n "> "; set_color normal; end'],
    env: {},
  },
  powershell: { command: 'powershell', args: ['-NoLogo', '-NoExit', '-NoProfile', '-Command', "Set-PSReadLineOption -HistorySaveStyle SaveNothing; function prompt { Write-Host '>' -NoNewLine -ForegroundColor Blue; return ' ' }"], env: {} },
  pwsh: { command: 'pwsh', args: ['-Login', '-NoLogo', '-NoExit', '-NoProfile', '-Command', "Set-PSReadLineOption -HistorySaveStyle SaveNothing; Function prompt { Write-Host -ForegroundColor Blue -NoNewLine '>'; return ' ' }"], env: {} },
  cmd: { command: 'cmd.exe', args: ['/k', 'prompt=^> '], env: {} },
  nu: { command: 'nu', args: ['--execute', "$env.PROMPT_COMMAND = {'\x1b[;38;2;91;86;224m>\x1b[m '}; $env.PROMPT_COMMAND_RIGHT = {''}"], env: {} },
  osh: { command: 'osh', args: ['--norc'], env: { PS1 } },
  xonsh: { command: 'xonsh', args: ['--no-rc', '-D', 'PROMPT=\x1b[;38;2;91;86;224m>\x1b[m '], env: {} },
};
