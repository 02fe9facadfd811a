/** Flag values read for commander, whose refusals name the flag and the value given. */
import { InvalidArgumentError } from 'commander';
import { ANY, parseWhole } from '../settings/kinds.js';

/** `parse` for commander: what it throws becomes commander's sentence about the flag. */
export function argParser<T>(parse: (text: string) => T): (text: string) => T {
  return (text) => {
    try {
      return parse(text);
    } catch (err) {
      throw new InvalidArgumentError(`${(err as Error).message}.`);
    }
  };
}

export const integer = (min: number, max = ANY): ((text: string) => number) => argParser((text) => parseWhole(text, min, max));
