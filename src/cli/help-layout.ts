/**
 * `--help` that reads in a terminal of 80 columns. commander pads every flag to the longest one
 * (`brook serve` has one of 66 characters) and then, with too little room left, stops wrapping
 * the descriptions. Here the flag column is at most TERM_COLUMN wide and a longer flag has its
 * description on the lines below it; where the room beside the flags is narrower than
 * MIN_DESCRIPTION or than a description's longest word (a Kafka config name can be 62
 * characters), every description of the command goes under its flag instead. The width is the
 * terminal's, else `$COLUMNS`, else 80, as commander's.
 */
import { Help, type Command, type HelpConfiguration, type OutputConfiguration } from 'commander';

const TERM_COLUMN = 30;
const MIN_DESCRIPTION = 40;
/** Where a description under its flag starts. */
const UNDER_INDENT = 6;
/** Between the margin, the flag and its description, as commander spaces them. */
const GAPS = 4;

/** The helpers laying their command out with each description under its flag. */
const stacked = new WeakSet<Help>();

export const HELP_LAYOUT: HelpConfiguration = {
  padWidth(this: Help, cmd: Command, helper: Help): number {
    return Math.min(Help.prototype.padWidth.call(this, cmd, helper), TERM_COLUMN);
  },
  formatHelp(this: Help, cmd: Command, helper: Help): string {
    const descriptions = [
      ...helper.visibleOptions(cmd).map((o) => helper.optionDescription(o)),
      ...helper.visibleCommands(cmd).map((c) => helper.subcommandDescription(c)),
      ...helper.visibleArguments(cmd).map((a) => helper.argumentDescription(a)),
    ];
    const longestWord = Math.max(0, ...descriptions.flatMap((d) => d.split(/\s+/)).map((w) => helper.displayWidth(w)));
    const room = (this.helpWidth ?? 80) - helper.padWidth(cmd, helper) - GAPS;
    if (room < Math.max(MIN_DESCRIPTION, longestWord)) stacked.add(this);
    return Help.prototype.formatHelp.call(this, cmd, helper);
  },
  formatItem(this: Help, term: string, termWidth: number, description: string, helper: Help): string {
    const formatItem = Help.prototype.formatItem.bind(this);
    if (description === '') return formatItem(term, termWidth, description, helper);
    if (stacked.has(this)) {
      const under = helper.boxWrap(description, (this.helpWidth ?? 80) - UNDER_INDENT).replace(/^/gm, ' '.repeat(UNDER_INDENT));
      return `  ${term}\n${under}`;
    }
    if (helper.displayWidth(term) <= termWidth) return formatItem(term, termWidth, description, helper);
    return `  ${term}\n${formatItem('', termWidth, description, helper)}`;
  },
};

export const HELP_OUTPUT: OutputConfiguration = {
  getOutHelpWidth: () => (process.stdout.isTTY ? process.stdout.columns : columnsOfEnvironment()),
  getErrHelpWidth: () => (process.stderr.isTTY ? process.stderr.columns : columnsOfEnvironment()),
};

function columnsOfEnvironment(): number {
  const columns = Number(process.env.COLUMNS);
  return Number.isInteger(columns) && columns > 0 ? columns : 80;
}
