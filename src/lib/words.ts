// Word lists of the random-words file name format (adjective-adjective-animal).

export const RANDOM_WORDS_ADJECTIVES = [
  'able', 'active', 'agile', 'amber', 'ancient', 'brave', 'bright', 'brisk', 'calm', 'clever', 'cosmic', 'crisp',
  'curious', 'daring', 'dazzling', 'eager', 'early', 'electric', 'elegant', 'epic', 'fancy', 'fierce', 'fluffy',
  'fresh', 'friendly', 'gentle', 'giant', 'glad', 'golden', 'graceful', 'grand', 'happy', 'hidden', 'honest',
  'humble', 'icy', 'jolly', 'keen', 'kind', 'lively', 'lucky', 'lunar', 'magic', 'mellow', 'merry', 'mighty',
  'misty', 'modern', 'noble', 'nimble', 'odd', 'patient', 'polite', 'proud', 'quick', 'quiet', 'rapid', 'rare',
  'regal', 'rosy', 'royal', 'rustic', 'silent', 'silver', 'simple', 'sleek', 'smart', 'snowy', 'solar', 'speedy',
  'spicy', 'steady', 'stormy', 'sunny', 'swift', 'tender', 'tidy', 'tiny', 'tranquil', 'vast', 'vivid', 'warm',
  'wild', 'wise', 'witty', 'young', 'zesty',
] as const;

export const RANDOM_WORDS_NOUNS = [
  'albatross', 'alpaca', 'badger', 'beaver', 'bison', 'bobcat', 'buffalo', 'camel', 'caribou', 'cheetah', 'condor',
  'cougar', 'coyote', 'crane', 'dingo', 'dolphin', 'donkey', 'eagle', 'falcon', 'ferret', 'finch', 'flamingo', 'fox',
  'gazelle', 'gecko', 'gibbon', 'giraffe', 'gorilla', 'hamster', 'hawk', 'hedgehog', 'heron', 'hippo', 'hyena',
  'ibis', 'iguana', 'jackal', 'jaguar', 'kangaroo', 'koala', 'lemur', 'leopard', 'lion', 'llama', 'lynx', 'macaw',
  'magpie', 'marmot', 'meerkat', 'mink', 'moose', 'narwhal', 'newt', 'ocelot', 'octopus', 'orca', 'otter', 'owl',
  'panda', 'panther', 'parrot', 'pelican', 'penguin', 'puffin', 'quail', 'rabbit', 'raccoon', 'raven', 'reindeer',
  'salmon', 'seal', 'shark', 'sloth', 'sparrow', 'squid', 'stork', 'swan', 'tapir', 'tiger', 'toucan', 'turtle',
  'walrus', 'weasel', 'whale', 'wolf', 'wombat', 'yak', 'zebra',
] as const;
