#pragma once
int  f( int x ){return x;}
